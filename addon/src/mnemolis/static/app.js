/* Mnemolis web UI: plain JavaScript, no build step, nothing loaded from elsewhere.
 *
 * Every URL is relative ("api/sources", "search"), so the page works at
 * http://host:8888/ and behind Home Assistant ingress, where the server adds
 * a <base href> for the ingress prefix. All text from the server is inserted
 * with textContent, never as HTML.
 */
"use strict";

(() => {
  const KEY_STORE = "mnemolis.apiKey";
  const STATUSES = ["Unconsolidated", "Working", "Core", "Deprecated"];
  const $ = (id) => document.getElementById(id);

  // --- small DOM helpers ---------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function badge(text, kind) {
    return el("span", { class: `badge ${kind}`, text });
  }

  function statusKind(status) {
    return { ok: "ok", answered: "ok", empty: "warn", skipped: "neutral", timeout: "bad", error: "bad", failed: "bad" }[status] || "neutral";
  }

  function fmtMs(ms) {
    if (typeof ms !== "number" || Number.isNaN(ms)) return "–";
    return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
  }

  function fmtTime(value) {
    if (value === null || value === undefined || value === "") return "–";
    const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
    if (Number.isNaN(date.getTime())) return String(value);
    return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
  }

  function safeUrl(url) {
    try {
      const parsed = new URL(url, document.baseURI);
      return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
    } catch {
      return null;
    }
  }

  function setBusy(button, busy) {
    if (!button) return;
    button.disabled = busy;
    button.setAttribute("aria-busy", busy ? "true" : "false");
  }

  // --- API client ------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, code, message, method, path) {
      super(message);
      this.status = status;
      this.code = code;
      this.method = method;
      this.path = path;
    }
  }

  let keyPrompt = null;

  async function api(method, path, body) {
    for (let attempt = 0; ; attempt++) {
      const headers = { Accept: "application/json", "X-Mnemolis-Client": "web-ui" };
      const key = sessionStorage.getItem(KEY_STORE);
      if (key) headers.Authorization = `Bearer ${key}`;
      const init = { method, headers, credentials: "same-origin", cache: "no-store" };
      if (body !== undefined) {
        headers["Content-Type"] = "application/json";
        init.body = JSON.stringify(body);
      }
      let resp;
      try {
        resp = await fetch(path, init);
      } catch (err) {
        throw new ApiError(0, "network", `the server could not be reached (${err.message})`, method, path);
      }
      const text = await resp.text();
      let data = null;
      if (text) {
        try { data = JSON.parse(text); } catch { data = null; }
      }
      if (resp.ok) return data;
      const code = (data && data.error && data.error.code) || `http_${resp.status}`;
      const message = (data && data.error && data.error.message) || `${resp.status} ${resp.statusText}`.trim();
      if (resp.status === 401 && attempt < 3) {
        const given = await askForKey(key ? "That key was not accepted." : "This server asks for an API key.");
        if (given) continue;
      }
      throw new ApiError(resp.status, code, message, method, path);
    }
  }

  function askForKey(reason) {
    if (keyPrompt) return keyPrompt;
    const dialog = $("key-dialog");
    $("key-reason").textContent = reason;
    $("key-input").value = "";
    keyPrompt = new Promise((resolve) => {
      dialog.addEventListener("close", () => {
        keyPrompt = null;
        const choice = dialog.returnValue;
        const value = $("key-input").value.trim();
        if (choice === "save" && value) {
          sessionStorage.setItem(KEY_STORE, value);
          resolve(true);
        } else {
          if (choice === "forget") sessionStorage.removeItem(KEY_STORE);
          resolve(false);
        }
        updateAuthState();
      }, { once: true });
    });
    dialog.returnValue = "";
    dialog.showModal();
    $("key-input").focus();
    return keyPrompt;
  }

  function updateAuthState() {
    const ingress = document.documentElement.dataset.ingress === "true";
    const key = sessionStorage.getItem(KEY_STORE);
    $("auth-state").textContent = ingress ? "via Home Assistant" : key ? "API key set" : "";
  }

  function errorNotice(err, what) {
    const box = el("div", { class: "notice error", role: "alert" });
    const status = err.status ? ` (HTTP ${err.status}, ${err.code})` : "";
    box.append(el("strong", { text: `${what}: ` }), err.message || String(err), status);
    if (err.status === 404 && err.code === "not_found" && /no route/.test(err.message || "")) {
      box.append(el("p", { class: "hint", text: "This server version does not offer this feature." }));
    } else if (err.status === 403) {
      box.append(el("p", { class: "hint", text: "Changing things needs the full API key; the read key only reads." }));
    }
    return box;
  }

  function showError(container, err, what) {
    clear(container).append(errorNotice(err, what));
  }

  function confirmAction(title, text, verb) {
    const dialog = $("confirm-dialog");
    $("confirm-title").textContent = title;
    $("confirm-text").textContent = text;
    $("confirm-yes").textContent = verb || "Delete";
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "confirm"), { once: true });
      dialog.returnValue = "";
      dialog.showModal();
      $("confirm-no").focus();
    });
  }

  // --- tabs ------------------------------------------------------------------

  const TABS = ["ask", "sources", "knowledge", "log"];
  const loaders = {};
  const loaded = new Set();

  function selectTab(name, { focus = false, reload = false } = {}) {
    if (!TABS.includes(name)) name = "ask";
    for (const tab of TABS) {
      const button = $(`tab-${tab}`);
      const active = tab === name;
      button.setAttribute("aria-selected", active ? "true" : "false");
      button.tabIndex = active ? 0 : -1;
      $(`panel-${tab}`).hidden = !active;
    }
    if (focus) $(`tab-${name}`).focus();
    if (location.hash !== `#${name}`) history.replaceState(null, "", `#${name}`);
    if (loaders[name] && (reload || !loaded.has(name))) {
      loaded.add(name);
      loaders[name]();
    }
  }

  function setUpTabs() {
    const list = document.querySelector('[role="tablist"]');
    list.addEventListener("click", (ev) => {
      const tab = ev.target.closest('[role="tab"]');
      if (tab) selectTab(tab.dataset.tab, { reload: true });
    });
    list.addEventListener("keydown", (ev) => {
      const current = TABS.indexOf(document.activeElement && document.activeElement.dataset.tab);
      if (current < 0) return;
      let next = null;
      if (ev.key === "ArrowRight") next = (current + 1) % TABS.length;
      else if (ev.key === "ArrowLeft") next = (current - 1 + TABS.length) % TABS.length;
      else if (ev.key === "Home") next = 0;
      else if (ev.key === "End") next = TABS.length - 1;
      if (next === null) return;
      ev.preventDefault();
      selectTab(TABS[next], { focus: true });
    });
    $("skip-link").addEventListener("click", (ev) => {
      ev.preventDefault();
      $("main").focus();
    });
  }

  // --- sources (shared by Ask, Sources and Log) ------------------------------

  let sourcesCache = null;

  async function fetchSources() {
    const data = await api("GET", "api/sources");
    sourcesCache = (data && data.sources) || [];
    fillSourcePickers();
    return sourcesCache;
  }

  function fillSourcePickers() {
    const picker = $("ask-source");
    const chosen = picker.value;
    for (const opt of [...picker.querySelectorAll("option[data-option]")]) opt.remove();
    const boxes = clear($("fusion-boxes"));
    const logSource = $("log-source");
    for (const opt of [...logSource.querySelectorAll("option[data-option]")]) opt.remove();
    for (const src of sourcesCache || []) {
      const state = src.configured ? (src.healthy ? "" : " — unhealthy") : " — not configured";
      picker.append(el("option", { value: src.name, "data-option": src.name, text: `${src.name}${state}` }));
      logSource.append(el("option", { value: src.name, "data-option": src.name, text: src.name }));
      const id = `fuse-${src.name}`;
      boxes.append(el("label", { for: id },
        el("input", { type: "checkbox", id, value: src.name, checked: src.configured }), src.name));
    }
    if ([...picker.options].some((o) => o.value === chosen)) picker.value = chosen;
  }

  // --- trace rendering (Ask and Log) -----------------------------------------

  function renderTrace(trace, { question } = {}) {
    const wrap = el("article", { class: "card trace" });
    if (question) wrap.append(el("p", { class: "muted" }, "Question: ", el("strong", { text: question })));
    wrap.append(el("h3", { text: "Answer" }));
    wrap.append(el("p", { class: "answer", "data-testid": "answer", text: trace.result || "" }));
    const used = trace.source_used || "none";
    const meta = el("p", { class: "meta" },
      el("span", {}, "Answered by ", el("strong", { "data-testid": "source-used", text: used })),
      trace.fallback ? badge("fallback", "warn") : null,
      used === "none" ? badge("no answer", "bad") : null,
      el("span", { text: `in ${fmtMs(trace.elapsed_ms)}` }));
    wrap.append(meta);

    if (trace.condition) {
      const c = trace.condition;
      const verdict = c.verdict === true ? "true" : c.verdict === false ? "false" : "unknown";
      wrap.append(el("h3", { text: "Condition" }));
      wrap.append(el("div", { class: "condition" },
        el("p", {}, el("strong", { text: c.text || "" }), " → ",
          badge(verdict, c.verdict === true ? "ok" : c.verdict === false ? "bad" : "neutral")),
        c.evidence ? el("p", { class: "muted", text: c.evidence }) : null));
    }

    const parts = trace.parts || [];
    if (parts.length > 1) {
      wrap.append(el("h3", { text: "Parts" }));
      wrap.append(el("ol", { class: "parts" }, parts.map((p) =>
        el("li", {}, el("strong", { text: p.query }), " — answered by ", el("span", { text: p.source_used }),
          el("details", {}, el("summary", { text: "This part's answer" }),
            el("div", { class: "answer", text: p.result }))))));
    }

    const runs = trace.sources || [];
    wrap.append(el("h3", { text: "Routing trace" }));
    if (!runs.length) {
      wrap.append(el("p", { class: "muted", text: "No source ran." }));
    } else {
      const rows = runs.map((r) => el("tr", {},
        el("td", { "data-label": "Source" }, el("strong", { text: r.name })),
        el("td", { "data-label": "Status" }, badge(r.status, statusKind(r.status)), r.cached ? " " : null,
          r.cached ? badge("cached", "neutral") : null),
        el("td", { class: "num", "data-label": "Time", text: fmtMs(r.ms) }),
        el("td", { "data-label": "Part", text: parts.length > 1 ? String((r.part || 0) + 1) : "–" }),
        el("td", { "data-label": "Why" }, r.reason || "",
          r.error ? el("div", { class: "error-text", text: r.error }) : null)));
      wrap.append(el("div", { class: "table-wrap" }, el("table", { class: "data", "data-testid": "trace" },
        el("caption", { class: "visually-hidden", text: "Sources that ran, in order" }),
        el("thead", {}, el("tr", {}, ["Source", "Status", "Time", "Part", "Why / error"].map((h) =>
          el("th", { scope: "col", text: h })))),
        el("tbody", {}, rows))));
    }

    const cites = trace.citations || [];
    wrap.append(el("h3", { text: "Citations" }));
    if (!cites.length) {
      wrap.append(el("p", { class: "muted", text: "No citations." }));
    } else {
      wrap.append(el("ol", { class: "citations", "data-testid": "citations" }, cites.map((c) => {
        const href = c.url ? safeUrl(c.url) : null;
        const title = href
          ? el("a", { href, target: "_blank", rel: "noopener noreferrer", text: c.title || c.url })
          : el("span", { text: c.title || c.ref || "(untitled)" });
        return el("li", {}, el("span", { class: "tag", text: c.source }), title,
          c.ref && href ? el("span", { class: "muted", text: ` (${c.ref})` }) : null,
          c.ref && !href ? el("div", { class: "muted" }, el("code", { text: c.ref })) : null);
      })));
    }
    return wrap;
  }

  function renderRoute(decision) {
    const wrap = el("article", { class: "card trace" });
    wrap.append(el("h3", { text: "Routing decision (nothing was run)" }));
    if (decision.condition) {
      wrap.append(el("div", { class: "condition" },
        el("p", {}, "Condition: ", el("strong", { text: decision.condition.text || "" })),
        el("p", { class: "muted", text: `checked with: ${(decision.condition.sources || []).join(", ") || "–"}` })));
    }
    wrap.append(el("ol", { class: "parts" }, (decision.parts || []).map((p) =>
      el("li", {}, el("strong", { text: p.query }), " → ",
        el("span", { text: (p.sources || []).join(", ") || "no source" }),
        p.reason ? el("div", { class: "muted", text: p.reason }) : null))));
    return wrap;
  }

  // --- Ask -------------------------------------------------------------------

  function setUpAsk() {
    const form = $("ask-form");
    const query = $("ask-query");
    const picker = $("ask-source");
    picker.addEventListener("change", () => {
      $("fusion-sources").hidden = picker.value !== "fusion";
    });
    query.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const text = query.value.trim();
      const status = $("ask-status");
      const out = $("ask-result");
      if (!text) {
        status.textContent = "Type a question first.";
        query.focus();
        return;
      }
      const body = { query: text, source: picker.value };
      if (picker.value === "fusion") {
        const names = [...document.querySelectorAll("#fusion-boxes input:checked")].map((b) => b.value);
        if (names.length) body.fusion_sources = names;
      }
      const button = $("ask-submit");
      setBusy(button, true);
      status.textContent = "Asking…";
      try {
        const result = await api("POST", "search", body);
        clear(out).append(renderTrace(result));
        status.textContent = result.source_used === "none" ? "No source could answer." : `Answered by ${result.source_used}.`;
      } catch (err) {
        status.textContent = "";
        showError(out, err, "The question could not be asked");
      } finally {
        setBusy(button, false);
      }
    });
    $("route-button").addEventListener("click", async () => {
      const text = query.value.trim();
      const out = $("ask-result");
      if (!text) {
        $("ask-status").textContent = "Type a question first.";
        query.focus();
        return;
      }
      try {
        const decision = await api("GET", `api/route?query=${encodeURIComponent(text)}`);
        clear(out).append(renderRoute(decision));
        $("ask-status").textContent = "Routing decision shown.";
      } catch (err) {
        showError(out, err, "The routing decision could not be loaded");
      }
    });
    loaders.ask = async () => {
      try {
        await fetchSources();
      } catch (err) {
        showError($("ask-result"), err, "Sources could not be loaded");
      }
    };
  }

  // --- Sources ---------------------------------------------------------------

  function renderSource(src) {
    const state = !src.configured ? badge("not configured", "neutral")
      : src.healthy ? badge("healthy", "ok") : badge("unhealthy", "bad");
    const resultBox = el("div", { class: "result-box", "aria-live": "polite" });
    const test = el("button", { type: "button", class: "small secondary", "aria-label": `Test ${src.name}`, text: "Test" });
    test.addEventListener("click", async () => {
      const question = $("test-question").value.trim() || "test";
      setBusy(test, true);
      clear(resultBox).append(el("p", { class: "muted", text: `Asking ${src.name}…` }));
      try {
        const result = await api("POST", "search", { query: question, source: src.name });
        const run = (result.sources || []).find((r) => r.name === src.name) || {};
        const box = el("div", { class: "card" },
          el("p", { class: "meta" }, badge(run.status || "?", statusKind(run.status)), el("span", { text: fmtMs(run.ms) })),
          run.error ? el("p", { class: "error-text", text: run.error }) : null,
          result.source_used !== "none" ? el("p", { class: "answer", text: result.result }) : null);
        clear(resultBox).append(box);
      } catch (err) {
        showError(resultBox, err, `Testing ${src.name} failed`);
      } finally {
        setBusy(test, false);
      }
    });
    const detail = src.detail && Object.keys(src.detail).length
      ? el("details", {}, el("summary", { text: "Details" }),
        el("dl", { class: "kv" }, Object.entries(src.detail).flatMap(([k, v]) =>
          [el("dt", { text: k }), el("dd", { text: typeof v === "object" ? JSON.stringify(v) : String(v) })])))
      : null;
    return el("div", { class: "item", "data-source": src.name },
      el("div", { class: "item-head" }, el("h3", { text: src.name }),
        el("span", {}, state, src.enabled === false ? " " : null, src.enabled === false ? badge("disabled", "neutral") : null)),
      src.last_error ? el("p", { class: "error-text" }, el("strong", { text: "Last error: " }), src.last_error) : null,
      detail,
      el("div", { class: "actions" }, test),
      resultBox);
  }

  // The claude_desktop_config.json entry for this server (mcp-remote bridge).
  function mcpRemoteConfig(url, key) {
    const args = ["mcp-remote", url];
    if (/^http:\/\//.test(url) && !/^http:\/\/(localhost|127\.0\.0\.1)[:/]/.test(url)) args.push("--allow-http");
    if (key) args.push("--header", `Authorization: Bearer ${key}`);
    return JSON.stringify({ mcpServers: { mnemolis: { command: "npx", args } } }, null, 2);
  }

  function copyButton(label, value) {
    const button = el("button", { type: "button", class: "small secondary", text: `Copy ${label}` });
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(value());
        button.textContent = "Copied";
      } catch {
        button.textContent = "Select and copy by hand";
      }
      setTimeout(() => { button.textContent = `Copy ${label}`; }, 2000);
    });
    return button;
  }

  async function loadConnect() {
    const body = $("connect-body");
    let info;
    try {
      info = await api("GET", "api/connection");
    } catch (err) {
      if (err.status === 403 || err.status === 401) {
        clear(body).append(el("p", { class: "hint", text: "The MCP address and the API key are shown with the full API key, or when you open Mnemolis from Home Assistant's sidebar." }));
      } else {
        showError(body, err, "Connection details could not be loaded");
      }
      return;
    }
    const ingress = document.documentElement.dataset.ingress === "true";
    // Behind ingress the page comes from Home Assistant; MCP clients reach the add-on's own port.
    const origin = ingress ? `http://${location.hostname}:${info.port}` : location.origin;
    const url = `${origin}${info.mcp_path}`;
    const key = info.api_key;
    let shown = false;
    const keyText = el("code", { id: "connect-key", text: key ? "•".repeat(16) : "" });
    const config = el("pre", { id: "connect-config", class: "code" });
    const render = () => {
      if (key) keyText.textContent = shown ? key : "•".repeat(16);
      config.textContent = mcpRemoteConfig(url, key ? (shown ? key : "YOUR_API_KEY") : "");
    };
    const toggle = el("button", { type: "button", class: "small secondary", id: "connect-show", "aria-pressed": "false", text: "Show key" });
    toggle.addEventListener("click", () => {
      shown = !shown;
      toggle.textContent = shown ? "Hide key" : "Show key";
      toggle.setAttribute("aria-pressed", shown ? "true" : "false");
      render();
    });
    render();
    const origins = { generated: "made by the add-on on first start", option: "set in the options", none: "none set: anyone who can reach the port may connect" };
    const rows = [
      el("dt", { text: "MCP (Streamable HTTP)" }), el("dd", {}, el("code", { id: "connect-url", text: url })),
      el("dt", { text: "MCP (legacy SSE)" }), el("dd", {}, el("code", { text: `${origin}${info.sse_path}` })),
      el("dt", { text: "API key" }), el("dd", {}, key ? keyText : null, " ", el("span", { class: "muted", text: `(${origins[info.key_origin] || info.key_origin}${info.key_file ? `, kept in ${info.key_file}` : ""})` })),
    ];
    clear(body).append(
      el("dl", { class: "kv" }, rows),
      key ? el("div", { class: "actions" }, toggle, copyButton("key", () => key)) : null,
      el("p", { class: "hint", text: "Claude Desktop: add this to claude_desktop_config.json (Settings → Developer → Edit Config)." }),
      config,
      el("div", { class: "actions" }, copyButton("config", () => mcpRemoteConfig(url, key || ""))));
  }

  function setUpSources() {
    const load = async () => {
      loadConnect();
      const list = $("sources-list");
      $("sources-status").textContent = "Loading sources…";
      try {
        const sources = await fetchSources();
        clear(list).append(...sources.map(renderSource));
        const ok = sources.filter((s) => s.configured && s.healthy).length;
        const configured = sources.filter((s) => s.configured).length;
        $("sources-status").textContent = `${configured} of ${sources.length} configured, ${ok} healthy.`;
      } catch (err) {
        $("sources-status").textContent = "";
        showError(list, err, "Sources could not be loaded");
      }
    };
    $("sources-refresh").addEventListener("click", load);
    loaders.sources = load;
  }

  // --- Knowledge: document databases ------------------------------------------

  function dbStats(entry) {
    // The list may carry the index state inline or under "status"/"stats".
    const st = (entry.status && typeof entry.status === "object" && entry.status)
      || (entry.stats && typeof entry.stats === "object" && entry.stats) || entry;
    const failures = st.failures || st.failed_files || [];
    return {
      files: st.files_indexed ?? st.files ?? st.documents,
      chunks: st.chunks,
      failedCount: st.files_failed ?? (Array.isArray(failures) ? failures.length : undefined),
      failures: Array.isArray(failures) ? failures : [],
      lastUpdate: st.last_update ?? st.updated_at ?? st.updateAt,
      indexing: Boolean(st.indexing),
      error: st.error || entry.error || null,
      path: entry.path || st.path,
    };
  }

  function renderDb(entry) {
    const name = entry.db || entry.name;
    const st = dbStats(entry);
    const isLoaded = entry.loaded !== false;
    const kv = el("dl", { class: "kv" });
    const add = (k, v) => { if (v !== undefined && v !== null && v !== "") kv.append(el("dt", { text: k }), el("dd", { text: String(v) })); };
    add("Folder", st.path);
    add("Files indexed", st.files);
    add("Chunks", st.chunks);
    add("Files failed", st.failedCount);
    add("Last update", st.lastUpdate !== undefined && st.lastUpdate !== null ? fmtTime(st.lastUpdate) : undefined);
    add("Registered", entry.createAt || entry.created_at ? fmtTime(entry.createAt || entry.created_at) : undefined);
    const failures = st.failures.length
      ? el("details", {}, el("summary", { text: `Failed files (${st.failedCount ?? st.failures.length})` }),
        el("ul", {}, st.failures.map((f) => el("li", {}, el("code", { text: f.path || f.file || "?" }), " — ",
          el("span", { class: "error-text", text: f.error || f.reason || "" })))))
      : null;
    const status = el("div", { class: "result-box", "aria-live": "polite" });
    const reindex = el("button", { type: "button", class: "small secondary", "aria-label": `Reindex ${name}`, text: "Reindex" });
    reindex.addEventListener("click", async () => {
      setBusy(reindex, true);
      clear(status).append(el("p", { class: "muted", text: `Reindexing ${name}…` }));
      try {
        await api("POST", `api/rag/${encodeURIComponent(name)}/reindex`);
        $("db-status").textContent = `${name} is being reindexed.`;
        await loadDbs();
      } catch (err) {
        showError(status, err, `Reindexing ${name} failed`);
      } finally {
        setBusy(reindex, false);
      }
    });
    const remove = el("button", { type: "button", class: "small danger", "aria-label": `Remove ${name}`, text: "Remove" });
    remove.addEventListener("click", async () => {
      const ok = await confirmAction(`Remove ${name}?`,
        `The index of “${name}” is deleted. The files in the folder are not touched.`, "Remove");
      if (!ok) return;
      try {
        await api("DELETE", `api/rag/${encodeURIComponent(name)}`);
        $("db-status").textContent = `${name} removed.`;
        await loadDbs();
        $("db-status").focus();
      } catch (err) {
        showError(status, err, `Removing ${name} failed`);
      }
    });
    return el("div", { class: "item", "data-db": name },
      el("div", { class: "item-head" }, el("h3", { text: name }),
        el("span", { class: "actions" },
          st.indexing ? badge("indexing…", "warn") : isLoaded ? badge("ready", "ok") : badge("not loaded", "bad"),
          entry.readonly ? badge("read-only", "neutral") : null)),
      st.error ? el("p", { class: "error-text" }, el("strong", { text: "Error: " }), st.error) : null,
      kv, failures, el("div", { class: "actions" }, reindex, remove), searchForm(name), status);
  }

  function searchForm(name) {
    // Try a database out: POST api/rag/{db}/search, the search_rag rules.
    const id = `db-search-${name}`;
    const input = el("input", { id, type: "search", autocomplete: "off" });
    const out = el("div", { class: "result-box", "aria-live": "polite" });
    const form = el("form", { class: "row db-search", role: "search", novalidate: true },
      el("div", { class: "field grow" }, el("label", { for: id, text: `Search ${name}` }), input),
      el("div", { class: "actions" }, el("button", { type: "submit", class: "small secondary", text: "Search" })));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const q = input.value.trim();
      if (!q) { input.focus(); return; }
      try {
        const data = await api("POST", `api/rag/${encodeURIComponent(name)}/search`, { q, limit: 5 });
        const [mode, hits] = Object.entries(data || {})[0] || ["", []];
        clear(out);
        if (!hits || !hits.length) {
          out.append(el("p", { class: "muted", text: `Nothing in ${name} matches “${q}”.` }));
          return;
        }
        out.append(el("p", { class: "muted", text: `${mode} search:` }), el("ol", { class: "citations" }, hits.map((h) =>
          el("li", {}, el("code", { text: h.source }),
            (h.matches || []).slice(0, 2).map((m) => el("div", { class: "content", text: m.content }))))));
      } catch (err) {
        showError(out, err, `Searching ${name} failed`);
      }
    });
    return el("div", {}, form, out);
  }

  async function fetchDatabases() {
    // GET api/rag carries each database's index state; api/list (the Kura
    // shape) only names them, so it is the fallback for older servers.
    try {
      const data = await api("GET", "api/rag");
      return (data && data.databases) || [];
    } catch (err) {
      if (err.status !== 404 && err.status !== 405) throw err;
    }
    const data = await api("GET", "api/list");
    const loadedSet = new Set((data && data.loaded) || []);
    return ((data && data.registered) || []).map((e) => ({ ...e, loaded: loadedSet.has(e.db) }));
  }

  let dbPoll = null;

  async function loadDbs() {
    const list = $("db-list");
    clearTimeout(dbPoll);
    try {
      const databases = await fetchDatabases();
      clear(list);
      if (!databases.length) list.append(el("p", { class: "muted", text: "No document databases yet." }));
      else list.append(...databases.map(renderDb));
      // Keep the numbers moving while a database is being indexed.
      if (databases.some((d) => d.indexing) && !$("panel-knowledge").hidden) dbPoll = setTimeout(loadDbs, 1500);
    } catch (err) {
      showError(list, err, "Document databases could not be loaded");
    }
  }

  function setUpDatabases() {
    $("db-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const name = $("db-name").value.trim();
      const path = $("db-path").value.trim();
      const status = $("db-status");
      if (!name || !path) {
        status.textContent = "Give the database a name and a folder.";
        (name ? $("db-path") : $("db-name")).focus();
        return;
      }
      const button = ev.submitter || $("db-form").querySelector("button");
      clear($("db-error"));
      setBusy(button, true);
      status.textContent = `Adding ${name}…`;
      try {
        await api("POST", "api/rag", { name, path });
        status.textContent = `${name} added; indexing.`;
        $("db-name").value = "";
        $("db-path").value = "";
        await loadDbs();
      } catch (err) {
        status.textContent = "";
        clear($("db-error")).append(errorNotice(err, `Adding ${name} failed`));
      } finally {
        setBusy(button, false);
      }
    });
  }

  // --- Knowledge: memories -----------------------------------------------------

  function fillStatusSelects() {
    for (const select of document.querySelectorAll(".status-select")) {
      clear(select);
      if (select.dataset.any) select.append(el("option", { value: "", text: select.dataset.any }));
      for (const s of STATUSES) select.append(el("option", { value: s, text: s }));
    }
  }

  function statusSelect(id, value) {
    const select = el("select", { id });
    for (const s of STATUSES) select.append(el("option", { value: s, text: s, selected: s === value }));
    return select;
  }

  function memoryList(data) {
    if (Array.isArray(data)) return data;
    if (!data) return [];
    return data.memories || data.results || data.items || [];
  }

  function renderMemory(mem) {
    const card = el("div", { class: "item", "data-memory": mem.id });
    const status = el("div", { class: "result-box", "aria-live": "polite" });
    const view = ({ focusEdit = false } = {}) => {
      clear(card);
      const quick = statusSelect(`mem-st-${mem.id}`, mem.status);
      quick.addEventListener("change", async () => {
        try {
          Object.assign(mem, await api("PATCH", `api/memories/${encodeURIComponent(mem.id)}`, { status: quick.value }) || { status: quick.value });
          clear(status).append(el("p", { class: "muted", text: `Status set to ${quick.value}.` }));
        } catch (err) {
          quick.value = mem.status;
          showError(status, err, "Changing the status failed");
        }
      });
      const edit = el("button", { type: "button", class: "small secondary", text: "Edit", "aria-label": "Edit this memory" });
      edit.addEventListener("click", () => editor());
      const del = el("button", { type: "button", class: "small danger", text: "Delete", "aria-label": "Delete this memory" });
      del.addEventListener("click", async () => {
        const preview = mem.content.length > 120 ? `${mem.content.slice(0, 120)}…` : mem.content;
        if (!(await confirmAction("Delete this memory?", `“${preview}” is deleted for good.`, "Delete"))) return;
        try {
          await api("DELETE", `api/memories/${encodeURIComponent(mem.id)}`);
          card.remove();
          $("mem-status-line").textContent = "Memory deleted.";
          $("mem-status-line").focus();
        } catch (err) {
          showError(status, err, "Deleting failed");
        }
      });
      card.append(
        el("p", { class: "content", text: mem.content }),
        el("div", {}, (mem.tags || []).map((t) => el("span", { class: "tag", text: t }))),
        el("p", { class: "meta" }, el("span", { text: `Updated ${fmtTime(mem.updated_at)}` }),
          el("span", { class: "muted", text: `id ${mem.id}` })),
        el("div", { class: "actions" },
          el("label", { for: quick.id, class: "visually-hidden", text: "Status" }), quick, edit, del),
        status);
      if (focusEdit) edit.focus();
    };
    const editor = () => {
      clear(card);
      const cid = `mem-edit-content-${mem.id}`;
      const tid = `mem-edit-tags-${mem.id}`;
      const sid = `mem-edit-status-${mem.id}`;
      const content = el("textarea", { id: cid, rows: 3 });
      content.value = mem.content;
      const tags = el("input", { id: tid, type: "text" });
      tags.value = (mem.tags || []).join(", ");
      const st = statusSelect(sid, mem.status);
      const save = el("button", { type: "submit", text: "Save" });
      const cancel = el("button", { type: "button", class: "secondary", text: "Cancel", onclick: () => view({ focusEdit: true }) });
      const form = el("form", { novalidate: true },
        el("div", { class: "field" }, el("label", { for: cid, text: "Content" }), content),
        el("div", { class: "row" },
          el("div", { class: "field grow" }, el("label", { for: tid, text: "Tags" }), tags),
          el("div", { class: "field" }, el("label", { for: sid, text: "Status" }), st)),
        el("div", { class: "actions" }, save, cancel), status);
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        setBusy(save, true);
        try {
          const updated = await api("PATCH", `api/memories/${encodeURIComponent(mem.id)}`, {
            content: content.value, tags: tags.value.split(",").map((t) => t.trim()).filter(Boolean), status: st.value,
          });
          Object.assign(mem, (updated && updated.memory) || updated || {});
          view({ focusEdit: true });
          clear(status).append(el("p", { class: "muted", text: "Saved." }));
        } catch (err) {
          showError(status, err, "Saving failed");
        } finally {
          setBusy(save, false);
        }
      });
      form.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { ev.preventDefault(); view({ focusEdit: true }); } });
      card.append(form);
      content.focus();
    };
    view();
    return card;
  }

  async function loadMemories() {
    const list = $("mem-list");
    const text = $("mem-filter-text").value.trim();
    const tags = $("mem-filter-tags").value.trim();
    const status = $("mem-filter-status").value;
    try {
      let data;
      if (text) {
        const body = { query: text, format: "json", limit: 50 };
        if (tags) body.tags = tags;
        if (status) body.status = status;
        data = await api("POST", "api/memories/search", body);
      } else {
        const params = new URLSearchParams();
        if (tags) params.set("tags", tags);
        if (status) params.set("status", status);
        const qs = params.toString();
        data = await api("GET", `api/memories${qs ? `?${qs}` : ""}`);
      }
      const items = memoryList(data);
      clear(list);
      const total = data && typeof data.total === "number" ? data.total : items.length;
      $("mem-status-line").textContent = total > items.length
        ? `Showing the newest ${items.length} of ${total} memories.`
        : `${items.length} ${items.length === 1 ? "memory" : "memories"}.`;
      list.append(...items.map(renderMemory));
    } catch (err) {
      $("mem-status-line").textContent = "";
      showError(list, err, "Memories could not be loaded");
    }
  }

  function setUpMemories() {
    fillStatusSelects();
    $("mem-status").value = "Unconsolidated";
    $("mem-filter-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadMemories();
    });
    $("mem-add-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const content = $("mem-content").value.trim();
      if (!content) {
        $("mem-status-line").textContent = "Write what to remember first.";
        $("mem-content").focus();
        return;
      }
      const tags = $("mem-tags").value.split(",").map((t) => t.trim()).filter(Boolean);
      try {
        await api("POST", "api/memories", { content, tags, status: $("mem-status").value });
        $("mem-content").value = "";
        $("mem-tags").value = "";
        $("mem-status-line").textContent = "Remembered.";
        await loadMemories();
      } catch (err) {
        showError($("mem-list"), err, "The memory could not be saved");
      }
    });
    loaders.knowledge = async () => {
      await Promise.all([loadDbs(), loadMemories()]);
    };
  }

  // --- Log -------------------------------------------------------------------

  let logCursor = null;

  function logParams() {
    const params = new URLSearchParams({ limit: "25" });
    const text = $("log-text").value.trim();
    if (text) params.set("q", text);
    if ($("log-source").value) params.set("source", $("log-source").value);
    if ($("log-outcome").value) params.set("status", $("log-outcome").value);
    if ($("log-fallback").value) params.set("fallback", $("log-fallback").value);
    return params;
  }

  function renderLogRow(entry) {
    const open = el("button", { type: "button", class: "small secondary", text: "Open",
      "aria-label": `Open trace of query ${entry.id}` });
    const row = el("tr", { "data-query-id": entry.id },
      el("td", { "data-label": "Time", text: fmtTime(entry.time) }),
      el("td", { class: "q", "data-label": "Question" }, entry.text_stored ? entry.query : el("em", { class: "muted", text: entry.query })),
      el("td", { "data-label": "Source used" }, entry.status === "failed" ? badge("none", "bad") : el("strong", { text: entry.source_used })),
      el("td", { "data-label": "Fallback" }, entry.fallback ? badge("yes", "warn") : "no"),
      el("td", { class: "num", "data-label": "Latency", text: fmtMs(entry.latency_ms) }),
      el("td", { "data-label": "Via", text: entry.surface }),
      el("td", {}, open));
    open.addEventListener("click", async () => {
      for (const r of document.querySelectorAll("#log-rows tr.selected")) r.classList.remove("selected");
      row.classList.add("selected");
      const detail = $("log-detail");
      try {
        const full = await api("GET", `api/queries/${encodeURIComponent(entry.id)}`);
        clear(detail).append(el("h3", { text: `Query ${full.id} — ${fmtTime(full.time)} via ${full.surface}` }),
          renderTrace(full.trace || {}, { question: full.query }));
      } catch (err) {
        showError(detail, err, "The trace could not be loaded");
      }
      detail.focus();
    });
    return row;
  }

  async function loadLog({ more = false } = {}) {
    const rows = $("log-rows");
    const params = logParams();
    if (more && logCursor) params.set("cursor", logCursor);
    try {
      const data = await api("GET", `api/queries?${params}`);
      if (!more) {
        clear(rows);
        clear($("log-detail"));
      }
      rows.append(...(data.queries || []).map(renderLogRow));
      logCursor = data.next_cursor || null;
      $("log-more").hidden = !logCursor;
      const shown = rows.children.length;
      $("log-status").textContent = shown
        ? `Showing ${shown} of ${data.total} logged questions.`
        : "No logged questions match.";
    } catch (err) {
      $("log-status").textContent = "";
      showError($("log-detail"), err, "The query log could not be loaded");
    }
  }

  function setUpLog() {
    $("log-filter-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      loadLog();
    });
    $("log-refresh").addEventListener("click", () => loadLog());
    $("log-more").addEventListener("click", () => loadLog({ more: true }));
    loaders.log = async () => {
      if (!sourcesCache) fetchSources().catch(() => {});
      await loadLog();
    };
  }

  // --- start -----------------------------------------------------------------

  function showGlobalError(message) {
    const box = $("global-notice");
    box.textContent = `Something went wrong in the page: ${message}. Reload to try again.`;
    box.hidden = false;
  }

  window.addEventListener("error", (ev) => showGlobalError(ev.message || "unknown error"));
  window.addEventListener("unhandledrejection", (ev) => {
    const reason = ev.reason;
    showGlobalError(reason && reason.message ? reason.message : String(reason));
  });

  document.addEventListener("DOMContentLoaded", () => {
    const version = document.documentElement.dataset.version;
    if (version && !version.startsWith("{{")) $("version").textContent = `v${version}`;
    $("key-button").addEventListener("click", () => {
      askForKey(sessionStorage.getItem(KEY_STORE) ? "Replace or forget the stored key." : "Enter the server's API key.")
        .then((changed) => { if (changed) { loaded.clear(); selectTab((location.hash || "#ask").slice(1), { reload: true }); } });
    });
    updateAuthState();
    setUpTabs();
    setUpAsk();
    setUpSources();
    setUpDatabases();
    setUpMemories();
    setUpLog();
    selectTab((location.hash || "#ask").slice(1));
    if (location.hash.slice(1) !== "ask") loaders.ask();
  });
})();
