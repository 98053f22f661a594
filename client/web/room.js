// Colloquy interview room: the interviewee's page. State is pushed (Server-Sent Events) and re-synced; the page
// heartbeats (presence); answers go through an outbox kept in localStorage and are retried until the server
// answers, each with its own entry id (the engine ignores a repeated id), so nothing typed is lost.
// - A long answer goes in as several entries cut between sentences (split.js: the same rule as `rehearse` and
//   `join`), and the page says so; the box keeps the answer until every part is delivered.
// - Each tab keeps its own outbox ("colloquy-room:<wid>:tab:<tab id>"), so two tabs never overwrite each other;
//   a tab adopts what a closed tab left undelivered (closed: its Web Lock is free, or, without Web Locks, its
//   record has not been touched for STALE_MS). Adopting twice only re-sends the same entry ids: harmless.
// - Section boundaries and time warnings (the engine's event log, as `notices`) are shown as they happen.
"use strict";
(function () {
  const _ = window.ColloquyI18n ? window.ColloquyI18n._ : (s, v) => (v ? s.replace(/%\((\w+)\)s/g, (m, k) => (k in v ? String(v[k]) : m)) : s);
  const number = window.ColloquyI18n ? window.ColloquyI18n.number : String;
  const PHASES = { opening: _("opening"), deep_dive: _("deep dive"), wrap_up: _("wrap-up") };
  const EXIT_REASONS = { time_expired: _("the time is up"), candidate_done: _("you finished early"),
                         coverage_satisfied: _("everything was covered"), system_error: _("a system error") };
  const base = location.pathname.replace(/\/+$/, "");
  const wid = decodeURIComponent(base.split("/")[2] || "");
  // the server words a refused answer's reason in the page's language (client/web/interview/refusals.py)
  const pageLang = document.documentElement.lang || "en";
  const entryUrl = base + "/entry" + (pageLang === "en" ? "" : "?lang=" + encodeURIComponent(pageLang));
  const legacyKey = "colloquy-room:" + wid;            // before per-tab outboxes: read once, adopted
  const tabPrefix = legacyKey + ":tab:";
  const STALE_MS = 90000, KEEP_SENT = 30;
  const $ = (id) => document.getElementById(id);
  const answer = $("answer"), form = $("answer-form"), sendButton = $("send");
  const randomId = () => Array.from(crypto.getRandomValues(new Uint8Array(12)),
                                    (b) => b.toString(16).padStart(2, "0")).join("");
  const clientId = "page-" + randomId().slice(0, 8);

  let tabKey = null;       // this tab's outbox record (null until the store is open)
  let outbox = [];         // [{id, text, state: pending|sent|failed, error, section, question, answer, part, of}]
  let boxAnswer = null;    // the answer (group id) whose text is in the box until all its parts are delivered

  // ------------------------------------------------------------------------------------- the outbox store
  function readRecord(key) {
    try { const r = JSON.parse(localStorage.getItem(key) || "null"); return r && typeof r === "object" ? r : null; }
    catch (e) { return null; }
  }
  const validItems = (items) => (Array.isArray(items) ? items : []).filter((i) =>
    i && typeof i.id === "string" && typeof i.text === "string" && ["pending", "sent", "failed"].includes(i.state));
  function persist() {
    if (!tabKey) return;
    let sent = outbox.filter((i) => i.state === "sent").length;
    outbox = outbox.filter((i) => i.state !== "sent" || sent-- <= KEEP_SENT);   // the latest delivered ones
    try {
      localStorage.setItem(tabKey, JSON.stringify({ v: 2, outbox: outbox, draft: answer.value, box: boxAnswer,
                                                    at: Date.now() }));
    } catch (e) { /* storage full or off: the page still holds it */ }
  }
  function adopt(key) {
    const rec = readRecord(key);
    try { localStorage.removeItem(key); } catch (e) { /* ignore */ }
    if (!rec) return 0;
    const known = new Set(outbox.map((i) => i.id));
    const items = validItems(rec.outbox).filter((i) => !known.has(i.id));
    outbox.push(...items);
    const draft = typeof rec.draft === "string" ? rec.draft.trim() : "";
    if (draft && !rec.box && !answer.value.includes(draft)) {     // a draft typed in the closed tab: kept
      answer.value = answer.value.trim() ? answer.value.replace(/\s+$/, "") + "\n\n" + draft : draft;
    }
    return items.length + (draft ? 1 : 0);
  }
  function holdLock(name) {            // true: this page now holds `name` for as long as it lives
    return new Promise((resolve) => {
      navigator.locks.request(name, { ifAvailable: true }, (lock) => {
        resolve(!!lock);
        return lock ? new Promise(() => {}) : null;
      }).catch(() => resolve(true));
    });
  }
  async function adoptOrphans() {
    if (!tabKey) return;
    const keys = [];
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const k = localStorage.key(i);
        if (k && k.startsWith(tabPrefix) && k !== tabKey) keys.push(k);
      }
    } catch (e) { return; }    // storage off: this page keeps its answers in memory
    let adopted = 0;
    for (const key of keys) {
      if (navigator.locks) {
        await navigator.locks.request(key, { ifAvailable: true }, (lock) => { if (lock) adopted += adopt(key); });
      } else {
        const rec = readRecord(key);
        if (!rec || !(Date.now() - (rec.at || 0) < STALE_MS)) adopted += adopt(key);
      }
    }
    if (adopted) { persist(); renderSent(); flush(); }
  }
  async function openStore() {
    const sessionKey = "colloquy-room-tab:" + wid;
    let id = null;
    try { id = sessionStorage.getItem(sessionKey); } catch (e) { id = null; }   // a reload keeps its tab id
    id = id || randomId();
    if (navigator.locks) { while (!(await holdLock(tabPrefix + id))) id = randomId(); }  // a duplicated tab
    try { sessionStorage.setItem(sessionKey, id); } catch (e) { /* ignore */ }
    tabKey = tabPrefix + id;
    const own = readRecord(tabKey);
    if (own) {
      outbox = validItems(own.outbox);
      answer.value = typeof own.draft === "string" ? own.draft : "";
      boxAnswer = typeof own.box === "string" ? own.box : null;
    }
    if (readRecord(legacyKey) !== null) adopt(legacyKey);
    persist();
    await adoptOrphans();
  }

  let view = null, skewMs = 0, ended = false, heartbeatTimer = null, beatSeq = 0, sending = false;
  let noticesShown = null;

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
    window.ColloquyRoomView = v;            // voice.js: speaks the question, stops the microphone on the end
    window.dispatchEvent(new CustomEvent("colloquy:state", { detail: v }));
    document.title = (v.topic || _("Interview")) + " — Colloquy";
    $("topic").textContent = v.topic || _("Interview");
    const phase = PHASES[v.phase] || "";
    $("section").textContent = v.section ? _("Section: %(title)s", { title: v.section.title }) + (phase ? " · " + phase : "")
      : (v.ended ? _("Finished") : phase);
    const banner = $("banner");
    const question = $("question");
    if (v.ended) {
      ended = true;
      banner.hidden = false;
      banner.className = "banner ended";
      const reason = EXIT_REASONS[v.exit_reason];
      banner.textContent = reason
        ? _("The interview has ended (%(reason)s). Thank you! Your answers are saved; anything not delivered is listed below with your text.", { reason: reason })
        : _("The interview has ended. Thank you! Your answers are saved; anything not delivered is listed below with your text.");
      const over = _("The interview is over.");
      if (question.textContent !== over) question.textContent = over;
      answer.readOnly = true;
      sendButton.disabled = true;
      stopHeartbeat();
    } else {
      if (v.status === "PAUSED") {
        banner.hidden = false;
        banner.className = "banner";
        banner.textContent = v.paused_reason === "disconnect"
          ? _("Paused: we lost you for a moment. You are back — the interview continues in a second.")
          : _("Paused by the interviewer. The clock keeps running; please wait.");
      } else if (v.status === "PLANNING" || v.status === "NOT_STARTED") {
        banner.hidden = false; banner.className = "banner"; banner.textContent = _("The interview is being prepared…");
      } else {
        banner.hidden = true;
      }
      const text = v.question || _("Waiting for the next question…");
      if (question.textContent !== text) question.textContent = text;   // aria-live announces changes only
    }
    renderNotices(v);
    tick();
    if (!ended) scheduleHeartbeat(v.heartbeat_seconds);
  }

  // ------------------------------------------------------------------- section boundaries and warnings
  function noticeText(n) {        // the engine's notice, worded in the page's language (the title is the plan's)
    const title = n.title || n.section_id || "";
    if (n.kind === "section_started") return _("New section: %(title)s", { title: title });
    if (n.kind === "section_ended") return _("Section ended: %(title)s", { title: title });
    if (n.kind === "time_warning") {
      return typeof n.seconds_left === "number"
        ? _("%(left)s left in this section (%(title)s)", { left: fmt(n.seconds_left), title: title })
        : _("Little time left in this section (%(title)s)", { title: title });
    }
    return n.text || "";
  }
  function renderNotices(v) {
    if (!Array.isArray(v.notices)) return;
    const list = v.notices, latest = list[list.length - 1] || null;
    const key = (latest ? latest.event_id : 0) + (v.ended ? ":ended" : "");
    if (key === noticesShown) return;
    noticesShown = key;
    $("notices").replaceChildren(...list.map((n) => {
      const li = document.createElement("li");
      li.className = n.kind;
      li.dataset.kind = n.kind;
      li.dataset.sectionId = n.section_id;
      li.textContent = noticeText(n);
      return li;
    }));
    $("notices-section").hidden = list.length === 0;
    const box = $("notice");
    if (!latest || v.ended) { box.hidden = true; }
    else {
      const before = list[list.length - 2];
      const lines = latest.kind === "section_started" && before && before.kind === "section_ended"
        ? [noticeText(before), noticeText(latest)] : [noticeText(latest)];
      box.hidden = false;
      box.className = "notice " + latest.kind;
      box.dataset.kind = latest.kind;
      box.textContent = lines.join("\n");
    }
    const current = v.section && latest && latest.kind === "time_warning" && latest.section_id === v.section.id;
    $("section-left").classList.toggle("warn", !!current);
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
    es.addEventListener("state", (e) => { $("connection").textContent = _("live"); render(JSON.parse(e.data)); });
    es.addEventListener("closed", () => { es.close(); $("connection").textContent = ended ? "" : _("reconnecting…");
      if (!ended) setTimeout(connect, 2000); });
    es.onerror = () => { if (!ended) $("connection").textContent = _("reconnecting…"); };
  }

  // ------------------------------------------------------------------------------------- answers
  const groupOf = (item) => item.answer || item.id;
  function groups() {
    const order = [], byId = new Map();
    for (const item of outbox) {
      const g = groupOf(item);
      if (!byId.has(g)) { byId.set(g, []); order.push(g); }
      byId.get(g).push(item);
    }
    return order.map((g) => ({ id: g, items: byId.get(g) }));
  }
  function groupStatus(items) {
    const n = items.length, sent = items.filter((i) => i.state === "sent").length;
    const failed = items.find((i) => i.state === "failed");
    if (failed) {
      return _("not delivered: %(error)s", { error: failed.error || _("refused") }) +
        (sent ? " " + _("(%(sent)s of %(total)s parts were delivered)", { sent: number(sent), total: number(n) }) : "");
    }
    if (sent === n) return n > 1 ? _("delivered in %(count)s parts", { count: number(n) }) : _("delivered");
    return (n > 1 ? _("sending part %(part)s of %(total)s…", { part: number(sent + 1), total: number(n) }) : _("sending…")) +
      " " + _("(kept here and in the box until the server has it)");
  }
  function renderSent() {
    $("sent").replaceChildren(...groups().map((g) => {
      const li = document.createElement("li");
      const failed = g.items.some((i) => i.state === "failed");
      li.className = failed ? "failed" : g.items.every((i) => i.state === "sent") ? "sent" : "pending";
      li.dataset.entryId = g.items[0].id;
      li.dataset.parts = String(g.items.length);
      li.appendChild(document.createTextNode(g.items.map((i) => i.text).join(" ")));
      const status = document.createElement("span");
      status.className = "status";
      status.textContent = groupStatus(g.items);
      li.appendChild(status);
      return li;
    }));
  }
  function say(text) { $("send-status").textContent = text; }

  // The answer in the box is done when none of its parts is pending: delivered, the box empties; refused, the
  // box holds what was not delivered (the parts before it are in the transcript already).
  function settle() {
    if (!boxAnswer) return;
    const items = outbox.filter((i) => groupOf(i) === boxAnswer);
    if (items.some((i) => i.state === "pending")) return;
    const undelivered = items.filter((i) => i.state !== "sent");
    if (items.length && !undelivered.length) {
      answer.value = "";
      say(items.length > 1 ? _("Your answer was sent in %(count)s parts (it was longer than one entry may be: %(limit)s characters).",
        { count: number(items.length), limit: number((view && view.max_entry_chars) || 8000) }) : _("Your answer was delivered."));
    } else if (undelivered.length) {
      answer.value = undelivered.map((i) => i.text).join(" ");
      say(_("Not delivered: %(error)s.", { error: undelivered[0].error || _("refused") }) + " " +
        (undelivered.length < items.length ? _("%(sent)s of %(total)s parts were delivered; the rest is back in the box.",
          { sent: number(items.length - undelivered.length), total: number(items.length) }) : _("Your answer is still in the box.")));
    }
    boxAnswer = null;
    if (!ended) answer.readOnly = false;
    persist();
  }

  function refuse(item, error) {       // this part and the later parts of the same answer: not delivered
    for (const other of outbox) {
      if (other.state === "pending" && groupOf(other) === groupOf(item)) { other.state = "failed"; other.error = error; }
    }
  }

  async function flush() {
    if (sending || !tabKey) return;
    sending = true;
    try {
      // the outbox array may be replaced (persist trims it) or grow (a new answer, an adopted tab) meanwhile
      for (let item = outbox.find((i) => i.state === "pending"); item; item = outbox.find((i) => i.state === "pending")) {
        let delay = 1000;
        while (item.state === "pending") {
          try {
            const r = await fetch(entryUrl, { method: "POST", headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ entry_id: item.id, text: item.text, reply_to_section_id: item.section || null,
                                     reply_to_question_id: item.question || null, audio_clips: item.audio || null,
                                     answer_id: item.of > 1 ? item.answer : null, part: item.of > 1 ? item.part : null,
                                     parts: item.of > 1 ? item.of : null }) });
            if (r.ok) { item.state = "sent"; break; }
            if (r.status === 400 || r.status === 404 || r.status === 409 || r.status === 413 || r.status === 422) {
              const body = await r.json().catch(() => ({}));
              refuse(item, r.status === 409 ? _("the interview had ended") : (body.error || ("HTTP " + r.status)));
              break;
            }
          } catch (e) { /* network: retry */ }
          $("connection").textContent = _("offline — will resend");
          await new Promise((res) => setTimeout(res, delay));
          delay = Math.min(delay * 2, 10000);
        }
        persist();
        renderSent();
        settle();
      }
    } finally { sending = false; }
    settle();
  }

  let began = null;             // {question, section} on screen at the first keystroke / first speech of this answer
  function onScreen() {
    return { question: (view && view.question_entry_id) || null, section: view && view.section ? view.section.id : null };
  }

  function submit() {
    if (ended || boxAnswer || !tabKey) return;
    const limit = (view && view.max_entry_chars) || 8000;
    const parts = window.ColloquyAnswer.split(answer.value, limit);
    if (!parts.length) return;
    const spoken = window.ColloquyVoice ? window.ColloquyVoice.claim() : null;   // voice.js: a spoken answer
    const group = spoken ? spoken.id : randomId();
    // the question on screen when the person began this answer (first keystroke, first words spoken), not now:
    // the engine files the answer with it, the late grace included
    const seen = began || onScreen();
    began = null;
    parts.forEach((text, n) => outbox.push({ id: n ? group + "-" + (n + 1) : group, text: text, state: "pending",
      section: seen.section, question: seen.question, answer: group, part: n + 1, of: parts.length,
      audio: n || !spoken ? null : spoken.clips }));
    boxAnswer = group;
    answer.readOnly = true;          // the box keeps the answer until it is delivered
    say(parts.length > 1 ? _("Sending your answer in %(count)s parts…", { count: number(parts.length) }) : _("Sending your answer…"));
    persist();
    renderSent();
    flush();
  }

  form.addEventListener("submit", (e) => { e.preventDefault(); submit(); });
  answer.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); submit(); }
  });
  let typing = null;            // the draft is saved 300 ms after the last key (and when the page is hidden)
  answer.addEventListener("input", () => {
    if (!began && answer.value.trim()) began = onScreen();     // (voice.js fills the box and says "input" too)
    if (!answer.value.trim()) began = null;
    clearTimeout(typing); typing = setTimeout(persist, 300);
  });
  addEventListener("pagehide", persist);
  document.addEventListener("visibilitychange", persist);

  setInterval(tick, 1000);
  fetch(base + "/state").then((r) => {
    if (r.status === 404) { $("question").textContent = _("This link does not open an interview. Check the link you were sent."); return null; }
    return r.ok ? r.json() : null;
  }).then((v) => { if (v) { render(v); heartbeat(); } }).catch(() => {});
  connect();
  openStore().catch(() => { tabKey = tabKey || tabPrefix + randomId(); }).then(() => {
    if (boxAnswer) { answer.readOnly = true; say(_("Sending your answer…")); }
    renderSent();
    flush();
    setInterval(() => { persist(); adoptOrphans(); }, 10000);     // touched (liveness without Web Locks), adopt
  });
  answer.focus();
})();
