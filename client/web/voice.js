// Colloquy voice room (client/web/voice/room.py): the interviewee speaks, the question is spoken.
// - Nothing is recorded before the participant ticks "Record my voice" (the server refuses audio without it).
// - The microphone button starts listening (hands-free: a turn ends after END_SILENCE of quiet following speech)
//   and stops it; holding the button (or the space bar on it) records while held (push-to-talk).
// - While the person speaks, the audio is cut at pauses into chunks (rules/voice/turns.py: the same constants)
//   sent as 16 kHz WAV to POST .../audio and transcribed at once, so little is left to do when the turn ends.
// - The transcript appears in the answer box, editable; it is sent AUTOSEND_S after the last chunk unless the
//   person edits it (then it waits for "Send answer"). Entry id `voice-<first clip>`: a clip re-sent is one entry.
// - Barge-in (rules/voice/bargein.py: the same rule and constants): speech that starts while the question is being
//   spoken stops the playback and is kept in full, with the pre-roll before it. While the question plays the bar is
//   higher (BARGE_IN_LEVEL for BARGE_IN_S without a break), so what the echo canceller leaves of the question's own
//   audio never stops it; until then only the pre-roll and the loud run are held, nothing is sent.
// - When the interview ends (or the page closes), capture stops at once: the tracks are stopped, nothing sent.
"use strict";
(function () {
  const base = location.pathname.replace(/\/+$/, "");
  const wid = decodeURIComponent(base.split("/")[2] || "");
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const lang = (params.get("lang") || document.body.dataset.language || document.documentElement.lang || "en").slice(0, 20);
  const _ = window.ColloquyI18n ? window.ColloquyI18n._ : (s, v) => (v ? s.replace(/%\((\w+)\)s/g, (m, k) => (k in v ? String(v[k]) : m)) : s);
  const R = { speech: 0.02, endSilence: 1.6, chunkPause: 0.35, chunkMin: 2.5, chunkMax: 12.0, preRoll: 0.3,
              maxTurn: 280, bargeLevel: 0.04, bargeIn: 0.2 };
  const AUTOSEND_S = Number(params.get("autosend") || 4);
  const RATE = 16000;
  const consentKey = "colloquy-voice-consent:" + wid, muteKey = "colloquy-voice-muted";
  const consent = $("voice-consent"), mic = $("mic"), mute = $("mute"), status = $("voice-status");
  const player = $("question-audio"), answer = $("answer");
  if (!consent || !mic) return;

  let stream = null, ctx = null, source = null, node = null, lastStream = null;
  let listening = false, held = false, ended = false;
  let blocks = [], blockSeconds = 0, spoke = false, quiet = 0, turnSeconds = 0, chunkHasSpeech = false;
  let loudRun = 0, bargeIns = 0;   // seconds of loud audio before the answer starts; playbacks stopped by speech
  let turn = null;            // {clips: [], texts: [], pending: 0, done: false, prefix, id, edited}
  let finished = [];          // completed turns waiting to be sent
  let lastQuestion = null;
  const say = (t) => { status.textContent = t; };

  // --------------------------------------------------------------------------------------- consent, mute
  consent.checked = localStorage.getItem(consentKey) === "yes";
  mute.setAttribute("aria-pressed", localStorage.getItem(muteKey) === "yes" ? "true" : "false");
  function muted() { return mute.getAttribute("aria-pressed") === "true"; }
  function syncButtons() {
    mic.disabled = ended || !consent.checked;
    mic.setAttribute("aria-pressed", listening || held ? "true" : "false");
    mic.textContent = listening || held ? "■ " + _("Stop listening") : "🎤 " + _("Speak");
    mute.textContent = muted() ? "🔇 " + _("Questions muted") : "🔊 " + _("Questions spoken");
    player.muted = muted();
  }
  consent.addEventListener("change", () => {
    localStorage.setItem(consentKey, consent.checked ? "yes" : "no");
    if (!consent.checked) stopCapture(_("Recording is off: you did not agree to it."));
    syncButtons();
  });
  mute.addEventListener("click", () => {
    mute.setAttribute("aria-pressed", muted() ? "false" : "true");
    localStorage.setItem(muteKey, muted() ? "yes" : "no");
    if (muted()) player.pause(); else playQuestion(true);
    syncButtons();
  });

  // ------------------------------------------------------------------------------------------- capture
  async function startCapture() {
    if (ended || !consent.checked || stream) return;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: false,
                                                                autoGainControl: false } });   // Whisper copes
    } catch (e) { say(_("The microphone is not available: %(error)s", { error: e.message })); stream = null; return; }
    lastStream = stream;
    if (ended || !consent.checked) { stopCapture(); return; }
    ctx = new AudioContext();
    source = ctx.createMediaStreamSource(stream);
    node = ctx.createScriptProcessor(4096, 1, 1);
    node.onaudioprocess = (ev) => onBlock(new Float32Array(ev.inputBuffer.getChannelData(0)), ctx.sampleRate);
    source.connect(node); node.connect(ctx.destination);
    resetChunk(); spoke = false; quiet = 0; turnSeconds = 0; loudRun = 0;
    say(_("Listening… speak when you are ready."));
  }
  function stopCapture(message) {
    if (node) { node.onaudioprocess = null; try { node.disconnect(); source.disconnect(); } catch (e) { /* gone */ } }
    if (stream) stream.getTracks().forEach((t) => t.stop());
    if (ctx) ctx.close().catch(() => {});
    stream = ctx = source = node = null;
    listening = held = false;
    blocks = []; blockSeconds = 0;
    if (message) say(message);
    syncButtons();
  }
  function resetChunk() { blocks = []; blockSeconds = 0; chunkHasSpeech = false; }

  function onBlock(samples, rate) {
    if (ended || !stream) return;
    let sum = 0;
    for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
    const level = Math.sqrt(sum / samples.length), secs = samples.length / rate;
    blocks.push({ samples, rate }); blockSeconds += secs;
    if (!spoke) {                          // before speech: hold the pre-roll and the loud run (rules/voice/bargein.py)
      const playing = speaking;
      loudRun = level >= (playing ? R.bargeLevel : R.speech) ? loudRun + secs : 0;
      if (loudRun > 0 && (!playing || loudRun >= R.bargeIn)) {
        spoke = true; quiet = 0; chunkHasSpeech = true; loudRun = 0;
        if (playing) bargeIn();
      } else {
        while (blockSeconds - blocks[0].samples.length / rate > R.preRoll + loudRun) {
          blockSeconds -= blocks.shift().samples.length / rate;
        }
        return;
      }
    } else if (level >= R.speech) { quiet = 0; chunkHasSpeech = true; } else { quiet += secs; }
    turnSeconds += secs;
    if (!held && quiet >= R.endSilence) { endTurn(); return; }
    if (chunkHasSpeech && ((blockSeconds >= R.chunkMin && quiet >= R.chunkPause) || blockSeconds >= R.chunkMax)) {
      sendChunk();
    } else if (turnSeconds >= R.maxTurn) { endTurn(); }
  }

  function bargeIn() {                   // the person speaks over the question: it stops, their words are kept
    bargeIns++;
    player.pause();
    say(_("Go ahead: the question has stopped and your words are being written down."));
  }

  function endTurn() {
    if (chunkHasSpeech) sendChunk(); else resetChunk();
    spoke = false; quiet = 0; turnSeconds = 0;
    if (turn) { turn.done = true; maybeFinish(turn); }
    turn = null;
    if (!listening) stopCapture();
    else say(_("Listening… (your answer is being written down)"));
  }

  function wav(blocksIn) {
    const rate = blocksIn[0].rate, total = blocksIn.reduce((n, b) => n + b.samples.length, 0);
    const all = new Float32Array(total);
    let o = 0; for (const b of blocksIn) { all.set(b.samples, o); o += b.samples.length; }
    const n = Math.floor(total * RATE / rate), pcm = new Int16Array(n);
    for (let i = 0; i < n; i++) {
      const x = i * rate / RATE, j = Math.floor(x), f = x - j;
      const v = (all[j] || 0) * (1 - f) + (all[j + 1] || 0) * f;
      pcm[i] = Math.max(-1, Math.min(1, v)) * 0x7fff;
    }
    const buf = new ArrayBuffer(44 + pcm.length * 2), d = new DataView(buf);
    const str = (p, s) => { for (let i = 0; i < s.length; i++) d.setUint8(p + i, s.charCodeAt(i)); };
    str(0, "RIFF"); d.setUint32(4, 36 + pcm.length * 2, true); str(8, "WAVE"); str(12, "fmt ");
    d.setUint32(16, 16, true); d.setUint16(20, 1, true); d.setUint16(22, 1, true); d.setUint32(24, RATE, true);
    d.setUint32(28, RATE * 2, true); d.setUint16(32, 2, true); d.setUint16(34, 16, true); str(36, "data");
    d.setUint32(40, pcm.length * 2, true);
    new Int16Array(buf, 44).set(pcm);
    return new Blob([buf], { type: "audio/wav" });
  }

  function sendChunk() {
    if (!blocks.length) return;
    const body = wav(blocks);
    resetChunk();
    if (!turn) {
      if (finished.some((x) => !x.sent && x.shown && !x.edited)) $("send").click();   // spoke again: that one is final
      turn = { clips: [], texts: [], pending: 0, done: false, prefix: null, id: null, edited: false };
    }
    const t = turn, n = t.texts.length;
    t.texts.push(""); t.clips.push(null); t.pending++;
    post(body, t, n);
  }

  async function post(body, t, n) {
    let delay = 1000;
    for (;;) {
      if (ended) { t.pending--; return; }
      try {
        const r = await fetch(base + "/audio?consent=yes&lang=" + encodeURIComponent(lang),
                              { method: "POST", headers: { "Content-Type": "audio/wav" }, body });
        const data = await r.json().catch(() => ({}));
        if (r.status === 200) {
          t.texts[n] = (data.text || "").trim(); t.clips[n] = data.clip;
          if (n === 0 || !t.id) t.id = t.id || data.entry_id;
          break;
        }
        if (r.status !== 202 && r.status < 500) { say(_("Not transcribed: %(error)s", { error: data.error || "HTTP " + r.status })); break; }
      } catch (e) { /* network: retry */ }
      await new Promise((res) => setTimeout(res, delay));
      delay = Math.min(delay * 2, 8000);
    }
    t.pending--;
    show(t);
    maybeFinish(t);
  }

  function show(t) {
    if (t.edited || t.sent) return;
    if (answer.readOnly) { clearTimeout(t.showTimer); t.showTimer = setTimeout(() => show(t), 200); return; }
    if (t.prefix === null) t.prefix = answer.value.trim();       // what was typed before speaking stays
    t.shown = true;
    const spoken = t.texts.filter(Boolean).join(" ");
    answer.value = t.prefix ? t.prefix + " " + spoken : spoken;
    answer.dispatchEvent(new Event("input"));
  }

  function maybeFinish(t) {
    if (!t.done || t.pending > 0 || t.finished) return;
    t.finished = true;
    t.clips = t.clips.filter(Boolean);
    if (!t.id || !t.texts.some(Boolean)) { say(_("Nothing was heard. Try again, a little louder.")); return; }
    finished.push(t);
    if (t.edited) { say(_("Your words are in the box: correct them if needed, then send.")); return; }
    say(_("Your words are in the box: edit them if needed (sending in %(seconds)s s).", { seconds: AUTOSEND_S }));
    const autosend = () => {
      if (t.edited || t.sent || ended) return;
      if (!t.shown || answer.readOnly) { t.timer = setTimeout(autosend, 300); return; }
      $("send").click();
    };
    t.timer = setTimeout(autosend, AUTOSEND_S * 1000);
  }
  answer.addEventListener("keydown", () => {
    for (const t of finished) if (!t.sent) { t.edited = true; clearTimeout(t.timer); }
    if (turn) turn.edited = true;
  });

  // room.js asks, when it sends the box: is this a spoken answer? ({id, clips} once, then it is spent)
  function claim() {
    const t = finished.find((x) => !x.sent && x.shown);
    if (!t) return null;
    t.sent = true; clearTimeout(t.timer);
    finished = finished.filter((x) => !x.sent);
    say(listening ? _("Sent. Listening…") : _("Sent."));
    return { id: t.id, clips: t.clips };
  }

  mic.addEventListener("click", () => {
    if (held) return;
    if (listening) { listening = false; if (spoke) endTurn(); else stopCapture(_("Stopped listening.")); }
    else { listening = true; startCapture(); }
    syncButtons();
  });
  let holdTimer = null;
  mic.addEventListener("pointerdown", () => {     // press and hold: push-to-talk
    if (listening || mic.disabled) return;
    holdTimer = setTimeout(() => { held = true; startCapture(); syncButtons(); }, 350);
  });
  const release = () => {
    clearTimeout(holdTimer);
    if (held) { held = false; setTimeout(() => { if (spoke || chunkHasSpeech) endTurn(); else stopCapture(); }, 0); }
  };
  mic.addEventListener("pointerup", release);
  mic.addEventListener("pointerleave", release);

  // ------------------------------------------------------------------------------------ spoken questions
  let speaking = false, played = 0;
  player.addEventListener("playing", () => { speaking = true; });
  player.addEventListener("ended", () => { played++; });
  for (const ev of ["ended", "pause", "error", "emptied"]) player.addEventListener(ev, () => { speaking = false; });
  async function playQuestion(force) {
    if (muted() || ended) return;
    const v = window.ColloquyRoomView;
    if (!v || !v.question || v.question_id == null) return;
    if (!force && lastQuestion === v.question_id) return;
    lastQuestion = v.question_id;
    const qid = v.question_id;
    player.src = base + "/question-audio?lang=" + encodeURIComponent(lang) + "&q=" + encodeURIComponent(qid);
    if (!muted()) await player.play().catch(() => say(_("Press play to hear the question.")));
  }

  window.addEventListener("colloquy:state", (ev) => {
    const v = ev.detail || {};
    if (v.ended && !ended) {
      ended = true;                          // 000: capture stops at once on closing
      player.pause();
      stopCapture(_("The interview has ended: the microphone is off."));
    }
    if (!ended) playQuestion(false);
    syncButtons();
  });
  addEventListener("pagehide", () => stopCapture());

  window.ColloquyVoice = {
    claim,
    capturing: () => !!stream && stream.getTracks().some((t) => t.readyState === "live"),
    questionsPlayed: () => played,
    questionPlaying: () => speaking,
    bargeIns: () => bargeIns,
    tracks: () => (lastStream ? lastStream.getTracks().map((t) => t.readyState) : []),   // "live" | "ended"
  };
  syncButtons();
})();
