// Colloquy interview room: the interviewee's page. State is pushed (Server-Sent Events) and re-synced; the page
// heartbeats (presence); answers go through an outbox kept in localStorage and are retried until the server
// answers, each with its own entry id (the engine ignores a repeated id), so nothing typed is lost.
"use strict";
(function () {
  const base = location.pathname.replace(/\/+$/, "");
  const wid = decodeURIComponent(base.split("/")[2] || "");
  const storeKey = "colloquy-room:" + wid;
  const $ = (id) => document.getElementById(id);
  const answer = $("answer"), form = $("answer-form"), sendButton = $("send");
  const randomId = () => Array.from(crypto.getRandomValues(new Uint8Array(12)),
                                    (b) => b.toString(16).padStart(2, "0")).join("");
  const clientId = "page-" + randomId().slice(0, 8);

  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(storeKey) || "{}"); } catch (e) { saved = {}; }
  const outbox = Array.isArray(saved.outbox) ? saved.outbox : [];   // [{id, text, state, error}]
  answer.value = saved.draft || "";
  const persist = () => {
    try { localStorage.setItem(storeKey, JSON.stringify({ outbox: outbox, draft: answer.value })); } catch (e) { /* full */ }
  };

  let view = null, skewMs = 0, ended = false, heartbeatTimer = null, beatSeq = 0, sending = false;

  function fmt(seconds) {
    if (seconds === null || seconds === undefined || isNaN(seconds)) return "--:--";
    const s = Math.max(0, Math.round(seconds));
    return String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
  }
  function left(iso) {
    if (!iso) return null;
    return (Date.parse(iso) - (Date.now() + skewMs)) / 1000;
  }
  function tick() {
    if (!view) return;
    $("section-left").textContent = ended ? "00:00" : fmt(view.section ? left(view.section.deadline) : null);
    $("overall-left").textContent = ended ? "00:00" : fmt(left(view.ends_at));
  }

  function render(v) {
    if (!v) return;
    if (v.as_of) skewMs = Date.parse(v.as_of) - Date.now();   // server time: the page's clock follows it
    view = v;
    document.title = (v.topic || "Interview") + " — Colloquy";
    $("topic").textContent = v.topic || "Interview";
    const phase = (v.phase || "").replace("_", " ");
    $("section").textContent = v.section ? "Section: " + v.section.title + " · " + phase : (v.ended ? "Finished" : phase);
    const banner = $("banner");
    const question = $("question");
    if (v.ended) {
      ended = true;
      banner.hidden = false;
      banner.className = "banner ended";
      banner.textContent = "The interview has ended" + (v.exit_reason ? " (" + v.exit_reason.replace(/_/g, " ") + ")" : "") +
        ". Thank you! Your answers are saved; anything not delivered is listed below with your text.";
      if (question.textContent !== "The interview is over.") question.textContent = "The interview is over.";
      answer.readOnly = true;
      sendButton.disabled = true;
      stopHeartbeat();
    } else {
      if (v.status === "PAUSED") {
        banner.hidden = false;
        banner.className = "banner";
        banner.textContent = v.paused_reason === "disconnect"
          ? "Paused: we lost you for a moment. You are back — the interview continues in a second."
          : "Paused by the interviewer. The clock keeps running; please wait.";
      } else if (v.status === "PLANNING" || v.status === "NOT_STARTED") {
        banner.hidden = false; banner.className = "banner"; banner.textContent = "The interview is being prepared…";
      } else {
        banner.hidden = true;
      }
      const text = v.question || "Waiting for the next question…";
      if (question.textContent !== text) question.textContent = text;   // aria-live announces changes only
    }
    tick();
    if (!ended) scheduleHeartbeat(v.heartbeat_seconds);
  }

  // ------------------------------------------------------------------------------------- presence
  async function heartbeat() {
    try {
      const r = await fetch(base + "/heartbeat", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ client_id: clientId, seq: beatSeq++ }) });
      if (r.ok) render(await r.json());
    } catch (e) { /* offline: the next beat tries again */ }
  }
  let beatEvery = 0;
  function scheduleHeartbeat(seconds) {
    const every = seconds || 0;
    if (every === beatEvery && heartbeatTimer) return;
    stopHeartbeat();
    beatEvery = every;
    if (every > 0) heartbeatTimer = setInterval(heartbeat, every * 1000);
  }
  function stopHeartbeat() { if (heartbeatTimer) clearInterval(heartbeatTimer); heartbeatTimer = null; beatEvery = 0; }

  // ------------------------------------------------------------------------------------- push
  function connect() {
    const es = new EventSource(base + "/stream");
    es.addEventListener("state", (e) => { $("connection").textContent = "live"; render(JSON.parse(e.data)); });
    es.addEventListener("closed", () => { es.close(); $("connection").textContent = ended ? "" : "reconnecting…";
      if (!ended) setTimeout(connect, 2000); });
    es.onerror = () => { if (!ended) $("connection").textContent = "reconnecting…"; };
  }

  // ------------------------------------------------------------------------------------- answers
  function renderSent() {
    const list = $("sent");
    list.textContent = "";
    for (const item of outbox) {
      const li = document.createElement("li");
      li.className = item.state;
      li.dataset.entryId = item.id;
      li.appendChild(document.createTextNode(item.text));
      const status = document.createElement("span");
      status.className = "status";
      status.textContent = item.state === "sent" ? "delivered" : item.state === "failed"
        ? "not delivered: " + (item.error || "refused") : "sending… (kept here until the server has it)";
      li.appendChild(status);
      list.appendChild(li);
    }
  }

  async function flush() {
    if (sending) return;
    sending = true;
    try {
      for (const item of outbox) {
        let delay = 1000;
        while (item.state === "pending") {
          try {
            const r = await fetch(base + "/entry", { method: "POST", headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ entry_id: item.id, text: item.text, reply_to_section_id: item.section || null }) });
            if (r.ok) { item.state = "sent"; break; }
            if (r.status === 400 || r.status === 404 || r.status === 409 || r.status === 413 || r.status === 422) {
              const body = await r.json().catch(() => ({}));
              item.state = "failed";
              item.error = r.status === 409 ? "the interview had ended" : (body.error || ("HTTP " + r.status));
              break;
            }
          } catch (e) { /* network: retry */ }
          $("connection").textContent = "offline — will resend";
          await new Promise((res) => setTimeout(res, delay));
          delay = Math.min(delay * 2, 10000);
        }
        persist();
        renderSent();
      }
    } finally { sending = false; }
  }

  function submit() {
    const text = answer.value.trim();
    if (!text || ended) return;
    outbox.push({ id: randomId(), text: text, state: "pending",
      section: view && view.section ? view.section.id : null });  // the question on screen: late grace
    answer.value = "";
    persist();
    renderSent();
    flush();
  }

  form.addEventListener("submit", (e) => { e.preventDefault(); submit(); });
  answer.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); submit(); }
  });
  answer.addEventListener("input", persist);

  renderSent();
  setInterval(tick, 1000);
  fetch(base + "/state").then((r) => {
    if (r.status === 404) { $("question").textContent = "This link does not open an interview. Check the link you were sent."; return null; }
    return r.ok ? r.json() : null;
  }).then((v) => { if (v) { render(v); heartbeat(); } }).catch(() => {});
  connect();
  flush();
  answer.focus();
})();
