//! Liveness and readiness (`http/health.rs`, issue 48): public, read
//! nothing, and say the server serves. (While it does not, the front answers
//! them: its unit test.)

use reqwest::StatusCode;

use super::common::spawn_app;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_serving_server_is_alive_and_ready_to_anyone() {
    let app = spawn_app().await;
    let (s, v) = app.get("/health", None).await;
    assert_eq!((s, v["status"].as_str(), v["serving"].as_bool()), (StatusCode::OK, Some("ok"), Some(true)), "{v}");
    let (s, v) = app.get("/ready", None).await;
    assert_eq!((s, v["status"].as_str()), (StatusCode::OK, Some("ready")), "{v}");
    // Only a probe's method.
    let r = app.client.post(format!("{}/ready", app.base)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
}
