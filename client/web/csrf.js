// Every state-changing request from this server's pages carries the X-Colloquy-CSRF header (client/web/guard.py):
// the session's token from <meta name="colloquy-csrf"> (put there by the server), "page" on public pages. Loaded
// before the page's own script, so room.js / console.js / study.js call fetch() as before.
(function () {
  "use strict";
  const original = window.fetch.bind(window);
  function token() {
    const meta = document.querySelector('meta[name="colloquy-csrf"]');
    return (meta && meta.content) || "page";
  }
  window.fetch = function (input, init) {
    const options = Object.assign({}, init || {});
    const method = (options.method || (input && input.method) || "GET").toUpperCase();
    if (method !== "GET" && method !== "HEAD") {
      const headers = new Headers(options.headers || (input && input.headers) || {});
      headers.set("X-Colloquy-CSRF", token());
      options.headers = headers;
      options.credentials = options.credentials || "same-origin";
    }
    return original(input, options);
  };
})();
