// Colloquy interviewer console: the session state is pushed (SSE); each change re-reads the console snapshot
// (transcript, notes, coverage, essay) from this server. Controls go through the engine's control update.
"use strict";
(function () {
  const wid = decodeURIComponent(location.pathname.replace(/\/+$/, "").split("/")[2] || "");
  const api = "/api/interviews/" + encodeURIComponent(wid);
  const $ = (id) => document.getElementById(id);
  let state = null, skewMs = 0, loading = false, again = false;

  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c);
    return node;
  };
  function fmt(seconds) {
    if (seconds === null || seconds === undefined || isNaN(seconds)) return "--:--";
    const s = Math.max(0, Math.round(seconds));
    return String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
  }
  const left = (iso) => (iso ? (Date.parse(iso) - (Date.now() + skewMs)) / 1000 : null);
  const over = () => state && ["FINALIZING", "COMPLETED", "TERMINATED"].includes(state.status);
  function tick() {
    if (!state) return;
    const sec = state.current_section;
    $("section-left").textContent = over() ? "00:00" : fmt(sec ? left(sec.deadline) : null);
    $("overall-left").textContent = over() ? "00:00" : fmt(left(state.ends_at));
  }

  // A small, safe markdown subset (headings, bullets, bold): text is never parsed as HTML.
  function inline(text) {
    const frag = document.createDocumentFragment();
    text.split(/(\*\*[^*]+\*\*)/).forEach((part) => {
      if (part.startsWith("**") && part.endsWith("**") && part.length > 4) frag.append(el("strong", {}, part.slice(2, -2)));
      else if (part) frag.append(part);
    });
    return frag;
  }
  function markdown(md) {
    const out = document.createDocumentFragment();
    let list = null;
    for (const line of (md || "").split("\n")) {
      const h = line.match(/^#{1,6}\s+(.*)/), b = line.match(/^\s*[-*]\s+(.*)/);
      if (b) { if (!list) { list = el("ul"); out.append(list); } list.append(el("li", {}, inline(b[1]))); continue; }
      list = null;
      if (h) out.append(el("h3", {}, inline(h[1])));
      else if (line.trim()) out.append(el("p", {}, inline(line)));
    }
    return out;
  }

  function renderState(s) {
    state = s;
    if (s.as_of) skewMs = Date.parse(s.as_of) - Date.now();
    $("topic").textContent = s.topic;
    const sec = s.current_section;
    const parts = [s.status.toLowerCase().replace("_", " "), "phase " + s.phase.replace("_", " ")];
    if (sec) parts.push("section " + sec.title + " (" + sec.asked + "/" + sec.total_questions + " asked)");
    if (s.status === "PAUSED") parts.push(s.paused_reason === "disconnect" ? "interviewee disconnected" : "paused");
    if (s.model_slow) parts.push("model slow: no decision in time, the plan's next question is in force");
    if (s.slow_decisions) parts.push(s.slow_decisions + " slow decision" + (s.slow_decisions > 1 ? "s" : ""));
    if (s.answer_in_parts) parts.push("an answer is coming in parts");
    if (s.exit_reason) parts.push("ended: " + s.exit_reason.replace(/_/g, " "));
    $("status").textContent = parts.join(" · ");
    $("question").textContent = s.next_question || (over() ? "The interview is over." : "—");
    $("instructions").replaceChildren(markdown(s.interviewer_instructions));
    $("pause").disabled = s.status !== "IN_PROGRESS";
    $("resume").disabled = s.status !== "PAUSED";
    $("end").disabled = over();
    tick();
  }

  function renderSnapshot(d) {
    renderState(d.state);
    $("room-link").textContent = d.room_link;
    const t = $("transcript");
    t.replaceChildren(...d.transcript.map((e) => el("li", { "data-speaker": e.speaker },
      el("span", { class: "who" }, e.speaker === "interviewer" ? "Interviewer: " : "Interviewee: "), e.text,
      e.late ? el("span", { class: "late" }, " (late, " + e.section_id + ")") : "")));
    $("transcript-count").textContent = "(" + d.transcript_total + ")";
    t.scrollTop = t.scrollHeight;
    $("coverage").replaceChildren(...d.coverage.map((sec) => el("div", {},
      el("h3", {}, sec.title),
      el("ul", {}, ...sec.questions.map((q) => el("li", { "data-question-id": q.id, "data-asked": String(q.asked) },
        el("span", { class: "mark" + (q.asked ? " asked" : ""), "aria-label": q.asked ? "asked" : "not asked" },
           q.asked ? "✓" : "○"), "P" + q.priority + " " + q.text))))));
    const n = d.notes, notes = $("notes");
    const group = (title, items) => items.length ? [el("h3", {}, title), el("ul", {}, ...items.map((x) => el("li", {}, x)))] : [];
    const blocks = [...group("Key ideas", n.key_ideas.map((k) => k.title + (k.description ? ": " + k.description : ""))),
      ...group("Stories", n.stories.map((s) => s.title + (s.summary ? ": " + s.summary : ""))),
      ...group("Gaps", n.gaps.map((g) => g.description)),
      ...group("Quotable", n.quotable_lines.map((q) => "“" + q.text + "”"))];
    notes.replaceChildren(...(blocks.length ? blocks : [el("p", { class: "meta" }, "No notes yet.")]));
    renderNotices(d.notices || [], d.state);
    const essay = $("essay");
    if (d.essay) essay.replaceChildren("Essay: ", el("a", { href: d.essay.url, id: "essay-link" }, d.essay.title || d.essay.name));
    else essay.textContent = d.state.status === "FINALIZING" ? "Writing the essay…" : "";
  }

  // Section boundaries and T-2:00 / T-0:30 warnings (the engine's event log, in words: rules/interview/notices.py)
  function renderNotices(list, s) {
    $("notices").replaceChildren(...list.map((n) => el("li", { class: n.kind, "data-kind": n.kind,
                                                              "data-section-id": n.section_id }, n.text)));
    const latest = list[list.length - 1], box = $("notice");
    const live = latest && !["FINALIZING", "COMPLETED", "TERMINATED"].includes(s.status);
    box.hidden = !live;
    if (live) { box.className = "notice " + latest.kind; box.textContent = latest.text; }
    const sec = s.current_section;
    $("section-left").classList.toggle("warn", !!(live && sec && latest.kind === "time_warning" &&
                                                  latest.section_id === sec.id));
  }

  async function load() {
    if (loading) { again = true; return; }
    loading = true;
    try {
      const r = await fetch(api + "/console");
      if (r.status === 401) { location.href = "/login?next=" + encodeURIComponent(location.pathname); return; }
      const d = await r.json();
      if (!r.ok) { $("status").textContent = d.error || ("HTTP " + r.status); return; }
      renderSnapshot(d);
    } catch (e) { $("status").textContent = "server unreachable — retrying"; }
    finally { loading = false; if (again) { again = false; load(); } }
  }

  async function control(action) {
    $("control-result").textContent = action + "…";
    try {
      const r = await fetch(api + "/control", { method: "POST", headers: { "Content-Type": "application/json" },
                                                body: JSON.stringify({ action: action }) });
      const d = await r.json();
      $("control-result").textContent = r.ok ? "" : (d.error || "refused");
      if (r.ok) { renderState(d); load(); }
    } catch (e) { $("control-result").textContent = "server unreachable"; }
  }
  $("pause").addEventListener("click", () => control("pause"));
  $("resume").addEventListener("click", () => control("resume"));
  $("end").addEventListener("click", () => { if (confirm("End the interview now?")) control("end"); });

  let lastEvent = -1;
  function connect() {
    const es = new EventSource(api + "/stream");
    es.addEventListener("state", (e) => {
      const s = JSON.parse(e.data);
      renderState(s);
      if (s.last_event_id !== lastEvent) { lastEvent = s.last_event_id; load(); }
    });
    es.addEventListener("closed", () => { es.close(); load(); if (!over() || state.status === "FINALIZING") setTimeout(connect, 2000); });
  }
  setInterval(tick, 1000);
  load();
  connect();
})();
