/* placeholder: the page is being written */
