// The pages' strings in the participant's language (client/web/i18n.py): the server puts the scripts' catalog in
// the page as JSON (<script type="application/json" id="room-strings">); `_("msgid", {name: value})` looks a string
// up there (English, the msgid, when it is missing) and fills its %(name)s placeholders. Babel extracts every
// `_("...")` of the scripts into client/web/locale/colloquy.pot.
"use strict";
(function () {
  let table = {};
  try {
    const node = document.getElementById("room-strings");
    const parsed = JSON.parse((node && node.textContent) || "{}");
    if (parsed && typeof parsed === "object") table = parsed;
  } catch (e) { table = {}; }
  function gettext(msgid, vars) {
    const text = typeof table[msgid] === "string" && table[msgid] ? table[msgid] : msgid;
    if (!vars) return text;
    return text.replace(/%\((\w+)\)s/g, (m, name) => (name in vars ? String(vars[name]) : m));
  }
  const lang = (document.body && document.body.dataset.language) || document.documentElement.lang || "en";
  window.ColloquyI18n = { _: gettext, lang: document.documentElement.lang || "en", participantLanguage: lang,
                          number: (n) => { try { return Number(n).toLocaleString(document.documentElement.lang || "en"); }
                                           catch (e) { return String(n); } } };
})();
