// Colloquy: an answer longer than the engine accepts goes in as several entries, cut between sentences. The same
// rule as rules/interview/answer_parts.py (read its docstring); both are checked against
// tests/fixtures/interview/answer_split_vectors.json. Lengths count code points, as the engine (Python) does.
"use strict";
(function () {
  const WHITESPACE = new Set(Array.from(" \t\n\r\f\v\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007" +
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"));
  const SENTENCE_ENDS = new Set(Array.from(".!?…"));
  const CJK_SENTENCE_ENDS = new Set(Array.from("。！？"));
  const CLOSERS = new Set(Array.from("\"'”’)]」』）》"));

  function stripWs(chars) {
    let start = 0, end = chars.length;
    while (start < end && WHITESPACE.has(chars[start])) start++;
    while (end > start && WHITESPACE.has(chars[end - 1])) end--;
    return chars.slice(start, end);
  }
  function endsSentence(chars, p) {
    if (p < chars.length && CLOSERS.has(chars[p])) return false;
    let i = p - 1;
    while (i >= 0 && CLOSERS.has(chars[i])) i--;
    if (i < 0) return false;
    if (CJK_SENTENCE_ENDS.has(chars[i])) return true;
    return SENTENCE_ENDS.has(chars[i]) && (p === chars.length || WHITESPACE.has(chars[p]));
  }
  function cut(chars, limit) {
    for (let p = limit; p > Math.floor(limit / 2); p--) if (endsSentence(chars, p)) return p;
    for (let p = limit; p > 0; p--) if (WHITESPACE.has(chars[p])) return p;
    return limit;
  }
  function splitAnswer(text, limit) {
    if (!(limit >= 1)) throw new RangeError("the entry limit must be at least 1 character, not " + limit);
    let chars = stripWs(Array.from(String(text)));
    const parts = [];
    while (chars.length > limit) {
      const at = cut(chars, limit);
      parts.push(stripWs(chars.slice(0, at)).join(""));
      chars = stripWs(chars.slice(at));
    }
    if (chars.length) parts.push(chars.join(""));
    return parts;
  }
  window.ColloquyAnswer = Object.freeze({ split: splitAnswer });
})();
