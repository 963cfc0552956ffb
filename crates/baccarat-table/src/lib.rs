pub mod roads;
