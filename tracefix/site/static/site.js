/* tracefix offline site: client-side search over search-index.js, and copy buttons.
 * mask() mirrors tracefix/logs/signature.py and tokenize() mirrors tracefix/site/search_index.py;
 * tests/site compare them with the Python functions in a real browser. No network is used. */
(function () {
  "use strict";

  // Python's \w and \d are Unicode-aware; \b is spelled out with lookarounds on W.
  var W = "[\\p{L}\\p{N}_]", D = "\\p{Nd}";

  function keepName(match) {
    var name = match.replace(/[\/\\]+$/, "").split(/[\/\\]/).pop();
    return name ? "<PATH>/" + name : "<PATH>";
  }

  function number(match, sign, digits) { return sign && digits.length <= 2 ? match : sign + "<N>"; }

  var MASKS = [
    [D + "{4}-" + D + "{2}-" + D + "{2}[ T_]" + D + "{2}:" + D + "{2}:" + D + "{2}(?:[.,]" + D + "+)?", "<TIME>"],
    ["(?<!" + W + ")" + D + "{2}:" + D + "{2}:" + D + "{2}(?:[.,]" + D + "+)?(?!" + W + ")", "<TIME>"],
    ["(?:[A-Za-z]:)?(?:[/\\\\][\\p{L}\\p{N}_.\\-+@~]+){2,}[/\\\\]?", keepName],
    ["(?<!" + W + ")0x[0-9a-fA-F]+(?!" + W + ")", "<HEX>"],
    ["(?<!" + W + ")[0-9a-f]{12,}(?!" + W + ")", "<HEX>"],
    ["(?<![A-Za-z_" + D + ".])(-?)(" + D + "+(?:\\." + D + "+)*)(?!" + D + ")", number]
  ].map(function (m) { return [new RegExp(m[0], "gu"), m[1]]; });

  function mask(text) {
    MASKS.forEach(function (m) { text = text.replace(m[0], m[1]); });
    text = text.replace(/`/g, "").replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"');
    return text.replace(/[ \t\f\v]+/g, " ").trim();
  }

  var WORD = /[A-Za-z0-9_]+/g, PART = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
  var CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var NOISE = /^(?:[0-9]+|0x[0-9a-f]*|(?=[a-f]*[0-9])[0-9a-f]{8,})$/;
  var STOP = new Set();

  function keep(t) { return t.length >= 2 && !STOP.has(t) && !NOISE.test(t); }

  function unique(list) { return Array.from(new Set(list)); }

  function wordTokens(word) {
    var parts = [word.toLowerCase()].concat((word.match(PART) || []).map(function (p) { return p.toLowerCase(); }));
    return unique(parts).filter(keep);
  }

  function cjkTokens(run) {
    if (run.length === 1) return [run];
    var out = [];
    for (var i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
    return out;
  }

  function tokenize(text) {
    var out = [];
    (text.match(WORD) || []).forEach(function (w) { out = out.concat(wordTokens(w)); });
    (text.match(CJK) || []).forEach(function (r) { out = out.concat(cjkTokens(r)); });
    return out;
  }

  // Mirrors signature._literal / compile_symptom: placeholders repeat, spaces stretch, gaps stay on a line.
  function escapeRe(s) { return s.replace(/[\\^$.*+?()[\]{}|\/-]/g, "\\$&"); }

  function literal(piece) {
    var out = "", pos = 0, re = /<(?:TIME|PATH|HEX|N)>/g, m;
    while ((m = re.exec(piece))) {
      var p = escapeRe(m[0]);
      out += escapeRe(piece.slice(pos, m.index)) + p + "(?:\\s*" + p + ")*";
      pos = m.index + m[0].length;
    }
    return (out + escapeRe(piece.slice(pos))).split(" ").join("\\s+");
  }

  // A symptom written with a final "$" must end its line (signature.py's `ends_line`).
  function symptomRegex(pieces, endsLine) {
    return new RegExp(pieces.map(literal).join("[^\\n]{0,400}?") + (endsLine ? "[ \\t]*(?=\\r?\\n|$)" : ""), "i");
  }

  var INDEX = null;

  function load() {
    if (INDEX) return INDEX;
    var raw = window.TRACEFIX_INDEX || { docs: [], postings: {}, stop: [], k1: 1.2, b: 0.75, avgdl: 1 };
    STOP = new Set(raw.stop);
    raw.docs.forEach(function (d) {
      d.regexes = d.symptoms.map(function (pieces, i) { return symptomRegex(pieces, d.line_end && d.line_end[i]); });
      d.pieces = [].concat.apply([], d.symptoms).map(function (p) { return p.toLowerCase().replace(/\s+/g, " "); });
    });
    INDEX = raw;
    return INDEX;
  }

  function bm25(index, terms) {
    var n = index.docs.length, scores = {}, words = {};
    terms.forEach(function (t) {
      var posting = index.postings[t];
      if (!posting) return;
      var idf = Math.log(1 + (n - posting.length + 0.5) / (posting.length + 0.5));
      posting.forEach(function (p) {
        var d = index.docs[p[0]], tf = p[1];
        var s = idf * tf * (index.k1 + 1) / (tf + index.k1 * (1 - index.b + index.b * d.len / index.avgdl));
        scores[p[0]] = (scores[p[0]] || 0) + s;
        (words[p[0]] = words[p[0]] || []).push([s, t]);
      });
    });
    return { scores: scores, words: words };
  }

  function signatureBoost(doc, masked, lowered) {
    var hits = doc.regexes.filter(function (re) { return re.test(masked); }).length;
    if (hits) return { boost: 1000 + 10 * (hits - 1), why: "error signature matches" };
    if (lowered.length >= 12 && doc.pieces.some(function (p) { return p.indexOf(lowered) >= 0; }))
      return { boost: 200, why: "matches part of an error signature" };
    return { boost: 0, why: "" };
  }

  function search(query, limit) {
    var index = load(), masked = mask(query), lowered = masked.toLowerCase().replace(/\s+/g, " ");
    var ranked = bm25(index, unique(tokenize(query))), results = [];
    index.docs.forEach(function (doc, i) {
      var sig = signatureBoost(doc, masked, lowered), score = (ranked.scores[i] || 0) + sig.boost;
      if (score <= 0) return;
      var top = (ranked.words[i] || []).sort(function (a, b) { return b[0] - a[0]; }).slice(0, 4);
      var why = sig.why || "words: " + top.map(function (w) { return w[1]; }).join(", ");
      results.push({ id: doc.id, url: doc.url, title: doc.title, area: doc.area, lang: doc.lang,
                     score: score, signature: sig.boost >= 1000, why: why });
    });
    results.sort(function (a, b) { return b.score - a.score || (a.id < b.id ? -1 : 1); });
    var cut = results.length ? results[0].score * 0.15 : 0;
    return results.filter(function (r) { return r.score >= cut; }).slice(0, limit || 12);
  }

  function resultItem(r) {
    var li = document.createElement("li"), a = document.createElement("a");
    li.dataset.id = r.id;
    li.lang = r.lang;
    if (r.signature) li.className = "sig";
    a.href = r.url;
    a.textContent = r.title;
    var tag = document.createElement("span"), why = document.createElement("span");
    tag.className = "tag";
    tag.lang = "en";
    tag.textContent = r.area;
    why.className = "why";
    why.lang = "en";
    why.textContent = r.id + " · " + r.why;
    li.append(a, tag, why);
    return li;
  }

  function showResults(box, status, text) {
    var query = text.trim(), results = query ? search(query) : [];
    box.replaceChildren.apply(box, results.map(resultItem));
    document.body.classList.toggle("searching", !!query);
    status.textContent = !query ? "" : results.length
      ? results.length + (results.length === 1 ? " matching record" : " matching records")
      : "No match. Try fewer words, or paste the exact error line.";
  }

  function initSearch() {
    var q = document.getElementById("q");
    if (!q) return;
    var box = document.getElementById("results"), status = document.getElementById("status");
    var run = function () {
      q.style.height = "auto";
      q.style.height = Math.min(q.scrollHeight + 4, 320) + "px";
      showResults(box, status, q.value);
    };
    q.addEventListener("input", run);
    q.addEventListener("keydown", function (e) {
      var first = box.querySelector("a");
      if (e.key === "Enter" && !e.shiftKey && first) { e.preventDefault(); window.location.href = first.href; }
    });
    var initial = new URLSearchParams(window.location.search).get("q");
    if (initial) { q.value = initial; }
    if (q.value) run();
  }

  function copied(button) {
    button.textContent = "Copied";
    button.classList.add("done");
    setTimeout(function () { button.textContent = "Copy"; button.classList.remove("done"); }, 1500);
  }

  function copyFallback(text, button) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove();
    if (ok) copied(button); else button.textContent = "Select and copy";
  }

  function copy(text, button) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(button); },
                                               function () { copyFallback(text, button); });
    } else {
      copyFallback(text, button);
    }
  }

  function initCopy() {
    document.querySelectorAll(".code .copy").forEach(function (button) {
      button.addEventListener("click", function () {
        copy(button.parentNode.querySelector("code").textContent, button);
      });
    });
  }

  function signatureHits(text) {
    var masked = mask(text);
    return load().docs.filter(function (d) {
      return d.regexes.some(function (re) { return re.test(masked); });
    }).map(function (d) { return d.id; });
  }

  window.tracefix = { mask: mask, signatureHits: signatureHits, tokenize: function (t) { load(); return tokenize(t); }, search: search };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { initSearch(); initCopy(); });
  } else {
    initSearch();
    initCopy();
  }
})();
