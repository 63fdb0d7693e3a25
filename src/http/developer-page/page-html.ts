/** The developer page's shell: one same-origin script and stylesheet, no inline code, no CDN. */
export const DEVELOPER_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Developer · Workspace API</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/developer/assets/developer.css">
  <script src="/developer/assets/developer.js" defer></script>
</head>
<body>
  <header class="top">
    <h1>Workspace API <span class="muted">· developer</span></h1>
    <nav><a href="/docs">API reference</a> <a href="/api/v1/openapi.json">OpenAPI</a></nav>
    <div id="whoami" class="whoami" hidden>
      <span id="whoami-text"></span>
      <button id="sign-out" type="button" class="link">Sign out</button>
    </div>
  </header>
  <noscript><p class="card">This page needs JavaScript.</p></noscript>

  <main>
    <section id="sign-in" class="card">
      <h2>Sign in</h2>
      <p class="muted">Paste your member session (from <code>npm run cli -- member token --member ID</code>).
        It is kept in this tab's session storage only, never in a cookie.</p>
      <form id="sign-in-form">
        <textarea id="session-input" rows="3" spellcheck="false" placeholder="eyJhbGciOi..." aria-label="Member session"></textarea>
        <button type="submit" id="sign-in-button">Sign in</button>
      </form>
      <p id="sign-in-error" class="error" role="alert"></p>
    </section>

    <section id="keys-section" class="card" hidden>
      <h2>API keys</h2>
      <p id="keys-notice" class="notice" hidden></p>
      <table id="keys-table">
        <thead><tr><th>Name</th><th>Prefix</th><th>Scopes</th><th>Created</th><th>Expires</th><th>Last used</th><th>Status</th><th></th></tr></thead>
        <tbody></tbody>
      </table>
      <p id="keys-empty" class="muted" hidden>No keys yet.</p>
      <details id="create-key" class="create-key">
        <summary>Create a key</summary>
        <form id="create-key-form">
          <label>Name <input id="key-name" required maxlength="100" placeholder="CRM sync"></label>
          <fieldset><legend>Scopes</legend>
            <p class="muted">Per resource: None, Read (its <code>.read</code> scope), or Write (read, create, update and delete).</p>
            <div id="key-scopes" class="scopes"></div></fieldset>
          <label>Expires (optional) <input id="key-expires" type="datetime-local"></label>
          <button type="submit" id="create-key-button">Create key</button>
          <p id="create-key-error" class="error" role="alert"></p>
        </form>
      </details>
      <div id="new-secret" class="secret" hidden>
        <strong>Copy this key now: it is shown once and cannot be shown again.</strong>
        <div class="secret-row"><code id="new-secret-value"></code><button type="button" id="copy-secret">Copy</button></div>
      </div>
    </section>

    <section id="playground" class="card" hidden>
      <h2>Playground</h2>
      <div class="row">
        <div>
          <p class="muted">A test token is valid for one hour. It starts with Read on every resource, so a first try cannot change data; choose Write for a resource to change its records.</p>
          <details id="token-scopes-details"><summary>Test token scopes</summary><div id="token-scopes" class="scopes"></div></details>
          <button type="button" id="get-token">Get a test token</button>
          <p id="token-status" class="muted"></p>
          <p id="token-error" class="error" role="alert"></p>
        </div>
      </div>
      <div class="grid">
        <div>
          <label>Procedure <select id="procedure-select"></select></label>
          <div id="procedure-info" class="procedure-info">
            <p><span id="proc-method" class="badge"></span> <code id="proc-name"></code>
              <span id="proc-deprecated" class="badge deprecated" hidden>deprecated</span></p>
            <p id="proc-description"></p>
            <p class="muted">Scope: <code id="proc-scope"></code></p>
            <p id="proc-deprecation" class="notice" hidden></p>
            <details><summary>Input schema</summary><pre id="proc-schema"></pre></details>
          </div>
          <label>Input (JSON; type dates as ISO strings)
            <textarea id="input-editor" rows="8" spellcheck="false"></textarea></label>
          <button type="button" id="send">Send</button>
          <p id="send-error" class="error" role="alert"></p>
        </div>
        <div id="result" class="result" hidden>
          <p>Status <strong id="result-status"></strong></p>
          <p id="result-hint" class="notice" role="alert" hidden></p>
          <details><summary>Response headers</summary><pre id="result-headers"></pre></details>
          <h3>Decoded response</h3>
          <pre id="result-decoded"></pre>
          <details><summary>Raw response</summary><pre id="result-raw"></pre></details>
          <h3>curl</h3>
          <pre id="result-curl"></pre>
        </div>
      </div>
    </section>

    <section id="live-feed" class="card" hidden>
      <h2>Live events</h2>
      <p class="muted">The workspace's events as they commit, newest first (the last 50): what your playground calls cause, and
        any other caller's. Streamed from <code>events.onEvent</code> with the test token, over Server-Sent Events.</p>
      <p id="feed-status" class="muted">Starts when you get a test token.</p>
      <p id="feed-error" class="error" role="alert"></p>
      <p id="feed-empty" class="muted">No events since the feed started.</p>
      <ol id="feed-list" class="feed"></ol>
    </section>
  </main>
</body>
</html>
`;
