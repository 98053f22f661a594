// Colloquy researcher page: re-reads the study (progress, participants, findings draft) every 2 seconds, so the
// draft refreshes as interviews finish. Text is always set as text, never parsed as HTML.
"use strict";
(function () {
  const sid = decodeURIComponent(location.pathname.replace(/\/+$/, "").split("/")[2] || "");
  const api = "/api/studies/" + encodeURIComponent(sid);
  const $ = (id) => document.getElementById(id);
  const td = (text, cls) => { const c = document.createElement("td"); c.textContent = text; if (cls) c.className = cls; return c; };
  function rows(tbody, items, cells) {
    tbody.replaceChildren(...items.map((item) => { const tr = document.createElement("tr"); tr.append(...cells(item)); return tr; }));
  }
  // coverage is green (darker: more); "none" (asked, not answered) is a gap: red, never coloured like coverage
  function heat(cell, n, total, gap) {
    const share = total ? n / total : 0;
    if (n === 0) { cell.style.background = "#fff"; return cell; }
    const light = gap ? 92 - Math.round(share * 60) : 92 - Math.round(share * 32);
    cell.style.background = gap ? "hsl(4, 70%, " + light + "%)" : "hsl(140, 45%, " + light + "%)";
    if (gap) { cell.classList.add(light < 55 ? "gap" : "gap-light"); cell.title = n + " of " + total + " (gap)"; }
    if (gap && light < 55) cell.style.color = "#fff";
    return cell;
  }
  const shown = (status) => (status === "started" ? "running" : status);   // one word with the counts above
  const secs = (s) => (s === null || s === undefined ? "-" : Math.round(s) + "s");
  // voice per language (client/web/voice/offered.py): offered only where the measured error rate is low enough
  function showVoice(v) {
    if (!v) return;
    const offered = v.languages.filter((x) => x.offered), typed = v.languages.filter((x) => !x.offered);
    $("voice-languages").textContent = "Voice (spoken answers) offered in: " +
      (offered.map((x) => x.language + " " + x.said.replace(/^offered /, "")).join(", ") || "none") +
      ". Typing only in: " + (typed.map((x) => x.language + " " + x.said.replace(/^typing only /, "")).join(", ") || "none") +
      ". Threshold " + v.threshold.toFixed(2) + " (WER; CER for ja, zh), measured by " + v.model + " (" + v.source + ").";
  }
  async function load() {
    let data;
    try {
      const r = await fetch(api, { credentials: "same-origin" });
      if (r.status === 401) { location.href = "/login?next=" + encodeURIComponent(location.pathname); return; }
      data = await r.json();
      if (!r.ok) throw new Error(data.error || r.statusText);
    } catch (e) { $("connection").textContent = "not updated: " + e.message; return; }
    const p = data.progress, f = data.findings;
    $("connection").textContent = "updated " + new Date().toLocaleTimeString();
    $("topic").textContent = p.topic;
    $("phase").textContent = p.phase + (p.quota ? " · quota " + p.quota : "") + (p.close_at ? " · closes " + p.close_at : "");
    $("closed").textContent = p.closed_reason ? "closed: " + p.closed_reason : "open";
    for (const k of ["invited", "started", "running", "completed", "abandoned", "revoked", "withdrawn"]) $("n-" + k).textContent = p[k];
    const mc = f.member_checking || {};
    $("member-checking").textContent = (mc.checked || 0) + " checked · " + (mc.corrected || 0) + " corrected · " + (mc.withdrew || 0) + " withdrew";
    showPlan(data.plan);
    showVoice(data.voice);
    $("n-median").textContent = secs(p.median_length_seconds);
    document.body.dataset.phase = p.phase;
    if (data.report) {
      $("report-row").hidden = false;
      $("report-link").href = data.report;
      $("md-link").href = api + "/findings.md";
      $("json-link").href = api + "/findings.json";
    }
    $("findings-status").textContent = "(" + f.status + ", " + f.completed + " interviews)";
    $("summary").textContent = f.summary || "";
    rows($("themes").tBodies[0], f.themes, (t) => [td(t.title), td(String(t.count), "n")]);
    themeChoices(p.phase === "done" ? f.themes : null);
    rows($("coverage").tBodies[0], f.coverage, (c) => [td(c.question_id + ": " + c.text),
      heat(td(c.asked + "/" + c.interviews, "n"), c.asked, c.interviews), heat(td(String(c.answered), "n"), c.answered, c.interviews),
      ...["none", "shallow", "adequate", "deep"].map((d) => heat(td(String(c.depth[d] || 0), "n"), c.depth[d] || 0, c.interviews, d === "none"))]);
    rows($("participants").tBodies[0], data.participants, (x) => {
      const check = x.status === "withdrawn" ? "withdrew" : x.corrections ? x.corrections + " corrected" : x.checked ? "checked" : "-";
      const cells = [td(x.participant_id), td(x.language || "-"), td(shown(x.status)), td(String(x.answers), "n"),
        td(secs(x.length_seconds), "n"), td(x.consented_at ? "yes" : "-"), td(check)];
      return cells;
    });
    $("participants").tBodies[0].querySelectorAll("tr").forEach((tr, i) => { tr.dataset.status = data.participants[i].status; tr.id = "p-" + data.participants[i].participant_id; });
  }
  // plan review: the plan as the participants will be asked it; approve (links open) or edit question texts
  let planShown = "";
  function showPlan(review) {
    const box = $("plan");
    if (!review || !review.plan) { box.hidden = true; return; }
    box.hidden = false;
    $("plan-state").textContent = review.approved ? "approved: links are open" : "waiting for your approval: links stay shut";
    $("plan-actions").hidden = review.approved;
    const key = JSON.stringify(review.plan) + review.approved;
    if (key === planShown) return;
    planShown = key;
    const list = $("plan-questions");
    list.replaceChildren(...review.plan.sections.flatMap((sec) => sec.questions.map((q) => {
      const li = document.createElement("li");
      const label = document.createElement("label");
      label.textContent = sec.title + " · " + q.id;
      label.htmlFor = "pq-" + q.id;
      const input = document.createElement("input");
      input.id = "pq-" + q.id; input.value = q.text; input.dataset.qid = q.id; input.readOnly = review.approved;
      input.maxLength = 500;
      li.append(label, input);
      return li;
    })));
    list.dataset.plan = JSON.stringify(review.plan);
  }
  async function review(body) {
    const r = await fetch(api + "/plan", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    $("plan-error").textContent = r.ok ? "" : (data.error || r.statusText);
    planShown = "";
    load();
  }
  $("plan-approve").addEventListener("click", () => review({ action: "approve" }));
  $("plan-save").addEventListener("click", () => {
    const plan = JSON.parse($("plan-questions").dataset.plan || "null");
    if (!plan) return;
    const texts = {};
    document.querySelectorAll("#plan-questions input").forEach((i) => { texts[i.dataset.qid] = i.value; });
    plan.sections.forEach((sec) => sec.questions.forEach((q) => { q.text = texts[q.id]; }));
    review({ action: "edit", plan: plan });
  });
  // theme editing (final findings): rename, merge, split → re-rendered without the models
  let themesShown = "";
  function themeChoices(themes) {
    $("theme-edit").hidden = !themes;
    if (!themes) return;
    const key = JSON.stringify(themes.map((t) => t.title));
    if (key === themesShown) return;
    themesShown = key;
    for (const id of ["edit-theme", "edit-others"]) {
      $(id).replaceChildren(...themes.map((t) => { const o = document.createElement("option"); o.value = t.title; o.textContent = t.title + " (" + t.count + ")"; return o; }));
    }
  }
  $("theme-edit").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const action = $("edit-action").value;
    const body = { action: action, theme: $("edit-theme").value, title: $("edit-title").value,
      others: action === "merge" ? [$("edit-others").value] : [],
      participants: $("edit-participants").value.split(/[\s,]+/).filter(Boolean) };
    const r = await fetch(api + "/themes", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    $("edit-error").textContent = r.ok ? "" : (data.error || r.statusText);
    if (r.ok) { themesShown = ""; $("edit-title").value = ""; $("edit-participants").value = ""; load(); }
  });
  load();
  setInterval(load, 2000);
})();
