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
  function heat(cell, n, total) {
    const share = total ? n / total : 0;
    cell.style.background = "hsl(140, 45%, " + (96 - Math.round(share * 56)) + "%)";
    return cell;
  }
  const secs = (s) => (s === null || s === undefined ? "-" : Math.round(s) + "s");
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
    for (const k of ["invited", "started", "running", "completed", "abandoned", "revoked"]) $("n-" + k).textContent = p[k];
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
    rows($("coverage").tBodies[0], f.coverage, (c) => [td(c.question_id + ": " + c.text),
      heat(td(c.asked + "/" + c.interviews, "n"), c.asked, c.interviews), heat(td(String(c.answered), "n"), c.answered, c.interviews),
      ...["none", "shallow", "adequate", "deep"].map((d) => heat(td(String(c.depth[d] || 0), "n"), c.depth[d] || 0, c.interviews))]);
    rows($("participants").tBodies[0], data.participants, (x) => {
      const cells = [td(x.participant_id), td(x.language || "-"), td(x.status), td(String(x.answers), "n"), td(secs(x.length_seconds), "n")];
      return cells;
    });
    $("participants").tBodies[0].querySelectorAll("tr").forEach((tr, i) => { tr.dataset.status = data.participants[i].status; tr.id = "p-" + data.participants[i].participant_id; });
  }
  load();
  setInterval(load, 2000);
})();
