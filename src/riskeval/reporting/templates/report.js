/* riskeval report: sorts and filters the tables, switches α and the system of the per-topic
   analysis, draws the plots from the page's JSON.  No network, no library; every value and every
   "significant" comes from the JSON written by riskeval. */
(function () {
  "use strict";
  document.documentElement.classList.remove("nojs");
  var SVGNS = "http://www.w3.org/2000/svg";
  /* the focus colours and the loss and gain colours come with the data (riskeval.plots._base):
     no focus colour is a red or a green */
  var PALETTE = [], LOSS = "", GAIN = "", PLAIN = "#9fb3c8", GREY = "#c8c8c8", HOLE = "#e08a00";
  var tip = document.getElementById("rk-tip");
  var states = {};

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function fmt(v, d) {
    if (v === null || v === undefined) { return "–"; }
    if (d === "p") { return v < 0.001 ? "<0.001" : v.toFixed(3); }
    if (d === 0) { return String(v); }
    return v.toFixed(d);
  }
  function g(v) { return String(Math.round(v * 1000) / 1000); }
  function short(name, n) { return name.length > n ? name.slice(0, n - 1) + "…" : name; }
  function showTip(evt, text) {
    tip.textContent = text;
    tip.hidden = false;
    var x = evt.clientX + 14, y = evt.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth) { x = evt.clientX - tip.offsetWidth - 10; }
    if (y + tip.offsetHeight > window.innerHeight) { y = evt.clientY - tip.offsetHeight - 10; }
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hideTip() { tip.hidden = true; }

  /* ---------- tables: sort by a header click, filter by the box above ---------- */
  function cellValue(cell) {
    var t = cell.textContent;
    if (t === "–" || t === "") { return null; }
    if (t === "<0.001") { return 0.0005; }
    var n = Number(t);
    return isNaN(n) ? t.toLowerCase() : n;
  }
  function compare(a, b, dir) {
    if (a === null && b === null) { return 0; }
    if (a === null) { return 1; }
    if (b === null) { return -1; }
    if (typeof a !== typeof b) { a = String(a); b = String(b); }
    return (a < b ? -1 : a > b ? 1 : 0) * dir;
  }
  /* A table's rows live in table.rkRows (every row); the body shows at most SHOWN of those that
     pass the filter, in the sorted order: laying out thousands of rows is what makes a page slow. */
  var SHOWN = 1000;
  function show(table) {
    var s = table.rkSort, rows = table.rkRows;
    if (s) {
      var keyed = rows.map(function (r, i) { return [cellValue(r.cells[s.col]), i, r]; });
      keyed.sort(function (a, b) { return compare(a[0], b[0], s.dir) || a[1] - b[1]; });
      rows = table.rkRows = keyed.map(function (k) { return k[2]; });
      var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
      for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
      heads[s.col].setAttribute("aria-sort", s.dir > 0 ? "ascending" : "descending");
    }
    caption(table);
    var q = (table.rkFilter || "").toLowerCase(), body = el("tbody"), shown = 0, more = 0;
    rows.forEach(function (r) {
      var text = r.cells[0].textContent + " " + (r.getAttribute("data-text") || "");
      if (q !== "" && text.toLowerCase().indexOf(q) < 0) { return; }
      if (shown < SHOWN) { body.appendChild(r); shown++; } else { more++; }
    });
    if (more) {
      var tr = el("tr", { "class": "rk-more" });
      tr.appendChild(el("td", { colspan: String(rows[0].cells.length) }, "… and " + more + " more rows: filter or sort to bring them here"));
      body.appendChild(tr);
    }
    table.replaceChild(body, table.tBodies[0]);
  }
  /* The caption names the order the rows are in: the table's own until a header is clicked. */
  function caption(table) {
    if (!table.caption || table.rkTitle === undefined) { return; }
    var s = table.rkSort, order = table.rkOrder;
    if (s) {
      var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
      order = heads[s.col].textContent + (s.dir > 0 ? ", ascending" : ", descending");
    }
    table.caption.textContent = table.rkTitle + ", " + table.rkNoun + " by " + order;
  }
  function sortable(table) {
    var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
    if (!table.rkRows) { table.rkRows = Array.prototype.slice.call(table.tBodies[0].rows); }
    Array.prototype.forEach.call(heads, function (th, i) {
      th.setAttribute("tabindex", "0");
      th.title = "sort";
      var click = function () {
        var s = table.rkSort;
        table.rkSort = { col: i, dir: s && s.col === i ? -s.dir : 1 };
        show(table);
      };
      th.addEventListener("click", click);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") { click(); } });
    });
  }
  function fillBody(table, rows) {
    table.rkRows = rows;
    show(table);
  }
  function row(head, cells, cls) {
    var tr = el("tr", cls ? { "class": cls } : {});
    tr.appendChild(el("th", { scope: "row" }, head));
    cells.forEach(function (c) { tr.appendChild(el("td", c[1] ? { "class": c[1] } : {}, c[0])); });
    return tr;
  }

  /* ---------- per measure ---------- */
  function sysClass(sign) { return sign < 0 ? "sig-loss" : sign > 0 ? "sig-win" : null; }

  function renderRisk(st) {
    var d = st.d, a = st.alpha, table = document.getElementById(d.key + "-risk-table");
    if (!table) { return; }
    var cols = d.columns, t = d.table[a], rows = [];
    d.systems.forEach(function (name, i) {
      var cells = cols.map(function (c) {
        /* c: [column, header, decimals, marked by the system's significance] */
        return [fmt(t[c[0]][i], c[2]), c[3] ? sysClass(d.sig[a][i]) : null];
      });
      var tr = row(name, cells, st.focus[i] ? "focus" : null);
      tr.setAttribute("data-system", String(i));
      tr.cells[0].setAttribute("tabindex", "0");
      tr.cells[0].className = "rk-pick";
      tr.cells[0].title = "per-topic analysis of " + name;
      rows.push(tr);
    });
    table.rkTitle = "Risk at α = " + g(d.alphas[a]);
    table.rkNoun = "systems";
    table.rkOrder = "mean score";
    fillBody(table, rows);
  }

  function ptIndex(st) { return st.d.pt.systems.indexOf(st.system); }

  function topicRows(st) {
    var d = st.d, pt = d.pt, k = ptIndex(st), a = st.alpha;
    var base = pt.base.length === 1 ? pt.base[0] : pt.base[k];
    var signs = new Array(d.topics.length).fill(0);
    pt.sig[k][a].forEach(function (j) { signs[Math.abs(j) - 1] = j < 0 ? -1 : 1; });
    /* fixed-point integers: scores in 1e-4, TR and TJ in 1e-2, p in 1e-3 (0: below 0.001) */
    function at(v, scale) { return v === null ? null : v / scale; }
    /* the judged fraction (1e-3) of the system's ranking, when the page has it, and the losses
       where it is below the threshold (flagged in Python, as the table without scripts is) */
    var judged = d.judged ? d.judged.pt[k] : null, holes = {};
    if (d.judged) { d.judged.holes[k].forEach(function (j) { holes[j] = true; }); }
    return d.topics.map(function (topic, j) {
      var s = pt.score[k][j], b = base[j], jf = judged ? at(judged[j], 1000) : null;
      return { topic: topic, text: d.texts ? d.texts[j] : "", score: at(s, 1e4), base: at(b, 1e4),
               delta: s === null || b === null ? null : (s - b) / 1e4, tr: at(pt.tr[k][a][j], 100),
               tj: at(pt.tj[k][a][j], 100), p: pt.p[k][a][j] === 0 ? 0 : at(pt.p[k][a][j], 1000), sign: signs[j],
               judged: jf, hole: holes[j] === true };
    });
  }

  function renderTopics(st) {
    var d = st.d, table = document.getElementById(d.key + "-topics-table");
    if (!table || ptIndex(st) < 0) { return; }
    var items = topicRows(st).slice().sort(function (x, y) { return compare(x.tr, y.tr, 1); });
    var rows = items.map(function (r) {
      var cells = [];
      if (d.texts) { cells.push([r.text, "text"]); }
      cells.push([fmt(r.score, 4)], [fmt(r.base, 4)], [fmt(r.delta, 4)], [fmt(r.tr, 2), sysClass(r.sign)],
                 [fmt(r.tj, 2)], [fmt(r.p, "p")], [r.sign !== 0 ? "yes" : "no"]);
      if (d.judged) { cells.push([fmt(r.judged, 3)], [r.hole ? "yes" : "", r.hole ? "rk-hole" : null]); }
      var tr = row(r.topic, cells);
      if (r.text) { tr.setAttribute("data-text", r.text); }
      return tr;
    });
    table.rkTitle = d.systems[st.system] + " at α = " + g(d.alphas[st.alpha]);
    table.rkNoun = "topics";
    table.rkOrder = "TR";
    fillBody(table, rows);
    drawTopics(st, items);
  }

  function frame(fig, w, h) {
    while (fig.firstChild) { fig.removeChild(fig.firstChild); }
    var svg = sv("svg", { viewBox: "0 0 " + w + " " + h, width: w, height: h, role: "img" });
    fig.appendChild(svg);
    return svg;
  }
  function scale(lo, hi, a, b) { return function (v) { return hi === lo ? (a + b) / 2 : a + (v - lo) * (b - a) / (hi - lo); }; }
  function ticks(lo, hi, n) {
    var step = Math.pow(10, Math.floor(Math.log10((hi - lo) / n || 1)));
    [1, 2, 5, 10].some(function (m) { if ((hi - lo) / (step * m) <= n) { step *= m; return true; } return false; });
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) { out.push(Math.round(v / step) * step); }
    return out;
  }
  function yAxis(svg, y, lo, hi, x0, x1, label) {
    ticks(lo, hi, 6).forEach(function (v) {
      svg.appendChild(sv("line", { x1: x0, x2: x1, y1: y(v), y2: y(v), stroke: v === 0 ? "#888" : "#eee" }));
      svg.appendChild(sv("text", { x: x0 - 6, y: y(v) + 4, "text-anchor": "end" }, g(v)));
    });
    svg.appendChild(sv("text", { x: 14, y: (y(lo) + y(hi)) / 2, transform: "rotate(-90 14 " + (y(lo) + y(hi)) / 2 + ")", "text-anchor": "middle" }, label));
  }

  function drawTopics(st, items) {
    var d = st.d, fig = document.querySelector('figure[data-chart="topics"][data-key="' + d.key + '"]');
    if (!fig) { return; }
    var W = 1100, H = 320, L = 60, R = 16, T = 16, B = 40, crit = d.pt.critical;
    var svg = frame(fig, W, H);
    var vals = [];
    items.forEach(function (r) { if (r.tr !== null) { vals.push(r.tr); } if (r.tj !== null) { vals.push(r.tj); } });
    var lo = Math.min.apply(null, vals.concat([-crit, 0])), hi = Math.max.apply(null, vals.concat([crit, 0]));
    var y = scale(lo, hi, H - B, T), bw = (W - L - R) / items.length;
    yAxis(svg, y, lo, hi, L, W - R, "TR, TJ");
    items.forEach(function (r, i) {
      if (r.tr === null) { return; }
      var x = L + i * bw, y0 = y(0), y1 = y(r.tr);
      svg.appendChild(sv("rect", { x: x + bw * 0.1, width: Math.max(bw * 0.8, 0.5), y: Math.min(y0, y1), height: Math.max(Math.abs(y1 - y0), 0.5),
                                   fill: r.sign < 0 ? LOSS : r.sign > 0 ? GAIN : PLAIN }));
      if (r.hole) {  /* a loss where the qrels judge little of the ranking: ringed */
        svg.appendChild(sv("rect", { x: x + bw * 0.05, width: Math.max(bw * 0.9, 1.5), y: Math.min(y0, y1) - 1.5,
                                     height: Math.max(Math.abs(y1 - y0), 0.5) + 3, fill: "none", stroke: HOLE,
                                     "stroke-width": 1.5, "class": "rk-hole-mark" }));
      }
      if (r.tj !== null && items.length <= 1000) {
        svg.appendChild(sv("circle", { cx: x + bw / 2, cy: y(r.tj), r: 1.8, fill: "#222" }));
      }
    });
    if (!d.correction) {
      [crit, -crit].forEach(function (c) {
        svg.appendChild(sv("line", { x1: L, x2: W - R, y1: y(c), y2: y(c), stroke: "#555", "stroke-dasharray": "5 4" }));
      });
    }
    svg.appendChild(sv("text", { x: (L + W - R) / 2, y: H - 10, "text-anchor": "middle" },
      items.length + " topics, sorted by TR; " + d.systems[st.system] + " against " + d.baseline + " at α = " + g(d.alphas[st.alpha])));
    var hit = sv("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "transparent" });
    svg.appendChild(hit);
    hit.addEventListener("mousemove", function (e) {
      var box = svg.getBoundingClientRect(), px = (e.clientX - box.left) * W / box.width;
      var r = items[Math.min(items.length - 1, Math.max(0, Math.floor((px - L) / bw)))];
      if (!r) { hideTip(); return; }  /* no topic under the pointer (a zero-size chart, a synthetic event) */
      showTip(e, "topic " + r.topic + (r.text ? ": " + r.text : "") + "\nscore " + fmt(r.score, 4) + ", baseline " + fmt(r.base, 4) +
        ", δ " + fmt(r.delta, 4) + "\nTR " + fmt(r.tr, 2) + ", TJ " + fmt(r.tj, 2) + ", p" + (d.correction ? " (" + d.correction + ")" : "") +
        " " + fmt(r.p, "p") + (r.sign < 0 ? "\nsignificant loss" : r.sign > 0 ? "\nsignificant gain" : "") +
        (r.judged !== null ? "\n" + d.judged.label + " " + fmt(r.judged, 3) +
          (r.hole ? ": a loss where little is judged, maybe a hole in the qrels" : "") : ""));
    });
    hit.addEventListener("mouseleave", hideTip);
  }

  function coloured(st) {
    var d = st.d, c = d.curves, out = {};
    var focus = d.focus.filter(function (i) { return c.systems.indexOf(i) >= 0; });
    if (focus.length) { focus.forEach(function (i) { out[i] = true; }); return out; }
    if (c.systems.length <= 8) { c.systems.forEach(function (i) { out[i] = true; }); return out; }
    var t = d.table[st.alpha][d.riskiest];
    var ranked = c.systems.filter(function (i) { return t[i] !== null; }).sort(function (a, b) { return t[a] - t[b]; });
    ranked.slice(0, 3).concat(ranked.slice(-3)).forEach(function (i) { out[i] = true; });
    return out;
  }

  /* m: a measure of d.curves.series: its column (key), header, decimals, what it is against,
     whether the t critical value bands it, whether the table's decisions mark it, its values */
  function drawCurves(st, m) {
    var d = st.d, c = d.curves;
    var fig = document.querySelector('figure[data-chart="' + m.key + '"][data-key="' + d.key + '"]');
    if (!fig || !m.values) { return; }
    var W = 1100, H = 380, L = 60, R = 190, T = 14, B = 40;
    var svg = frame(fig, W, H), series = m.values, xs = c.alphas;
    var vals = [];
    series.forEach(function (s) { s.forEach(function (v) { if (v !== null) { vals.push(v); } }); });
    var band = m.band && d.test === "t" && !d.correction && c.critical !== null;
    if (band) { vals.push(c.critical, -c.critical); }
    var lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    var x = scale(xs[0], xs[xs.length - 1], L, W - R), y = scale(lo, hi, H - B, T);
    if (band) {
      svg.appendChild(sv("rect", { x: L, width: W - L - R, y: y(c.critical), height: y(-c.critical) - y(c.critical), fill: "#efefef" }));
    }
    yAxis(svg, y, lo, hi, L, W - R, m.header + (m.against ? " against " + m.against : ""));
    ticks(xs[0], xs[xs.length - 1], 10).forEach(function (v) {
      svg.appendChild(sv("text", { x: x(v), y: H - B + 16, "text-anchor": "middle" }, g(v)));
    });
    svg.appendChild(sv("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, "α"));
    var ax = x(d.alphas[st.alpha]);
    svg.appendChild(sv("line", { x1: ax, x2: ax, y1: T, y2: H - B, stroke: "#2a5db0", "stroke-dasharray": "3 3" }));
    var colour = coloured(st), paths = [], labels = [], n = 0;
    function path(s) {
      var dstr = "";
      s.forEach(function (v, j) { if (v !== null) { dstr += (dstr ? "L" : "M") + x(xs[j]).toFixed(1) + " " + y(v).toFixed(1); } });
      return dstr;
    }
    c.systems.forEach(function (sys, k) {
      if (colour[sys]) { return; }
      paths.push([sv("path", { d: path(series[k]), fill: "none", stroke: GREY, "stroke-width": 1 }), sys, k]);
    });
    c.systems.forEach(function (sys, k) {
      if (!colour[sys]) { return; }
      var col = PALETTE[n++ % PALETTE.length];
      paths.push([sv("path", { d: path(series[k]), fill: "none", stroke: col, "stroke-width": 2 }), sys, k]);
      var last = series[k][series[k].length - 1];
      if (last !== null) { labels.push({ y: y(last), name: d.systems[sys], col: col }); }
    });
    paths.forEach(function (p) { p[0].setAttribute("data-system", d.systems[p[1]]); svg.appendChild(p[0]); });
    if (m.marked) {  /* the decisions of the table (its test and correction) at its α values */
      d.alphas.forEach(function (alpha, a) {
        c.systems.forEach(function (sys) {
          var v = d.table[a][m.key][sys], sign = d.sig[a][sys];
          if (!colour[sys] || sign === 0 || v === null) { return; }
          svg.appendChild(sv("circle", { cx: x(alpha), cy: y(v), r: 4, fill: sign < 0 ? LOSS : GAIN,
                                         stroke: "#fff", "class": "rk-sig" }));
        });
      });
    }
    labels.sort(function (a, b) { return a.y - b.y; });
    var prev = -Infinity;
    labels.forEach(function (l) {
      var ly = Math.max(l.y, prev + 12);
      if (ly > H - B + 6) { return; }  // no room: the name shows on hover
      prev = ly;
      svg.appendChild(sv("text", { x: W - R + 6, y: ly + 4, fill: l.col }, short(l.name, 28)));
    });
    var hit = sv("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "transparent", cursor: "pointer" });
    svg.appendChild(hit);
    var near = null;
    function nearest(e) {
      var box = svg.getBoundingClientRect(), px = (e.clientX - box.left) * W / box.width, py = (e.clientY - box.top) * H / box.height;
      var j = 0;
      xs.forEach(function (v, i) { if (Math.abs(x(v) - px) < Math.abs(x(xs[j]) - px)) { j = i; } });
      var best = null, dist = Infinity;
      c.systems.forEach(function (sys, k) {
        var v = series[k][j];
        if (v !== null && Math.abs(y(v) - py) < dist) { dist = Math.abs(y(v) - py); best = k; }
      });
      return best === null ? null : { k: best, j: j };
    }
    hit.addEventListener("mousemove", function (e) {
      var h = nearest(e);
      if (near) { near.removeAttribute("stroke-width-hover"); near.style.strokeWidth = ""; }
      if (!h) { hideTip(); return; }
      near = paths.filter(function (p) { return p[2] === h.k; })[0][0];
      near.style.strokeWidth = "3.5";
      showTip(e, d.systems[c.systems[h.k]] + "\n" + m.header + " " + fmt(series[h.k][h.j], m.decimals) + " at α = " + g(xs[h.j]));
    });
    hit.addEventListener("mouseleave", function () { hideTip(); if (near) { near.style.strokeWidth = ""; } });
    hit.addEventListener("click", function (e) {
      var h = nearest(e);
      if (h) { openSystem(st, c.systems[h.k]); }
    });
  }

  function redraw(st) {
    renderRisk(st);
    renderTopics(st);
    st.d.curves.series.forEach(function (m) { drawCurves(st, m); });
  }
  function setAlpha(st, a) {
    st.alpha = a;
    document.querySelectorAll('select.rk-alpha[data-key="' + st.d.key + '"]').forEach(function (s) { s.value = String(a); });
    redraw(st);
  }
  function setSystem(st, i) {
    st.system = i;
    document.querySelectorAll('select.rk-system[data-key="' + st.d.key + '"]').forEach(function (s) { s.value = String(i); });
    renderTopics(st);
  }
  /* a click on a system (the risk table, the curves): its per-topic analysis, brought into view;
     a system whose per-topic data the page does not hold gets a note saying how to have it */
  function openSystem(st, i) {
    var d = st.d, note = document.getElementById(d.key + "-topics-note");
    var has = d.pt.systems.indexOf(i) >= 0;
    if (has) { setSystem(st, i); }
    if (note) {
      note.textContent = has || d.systems[i] === undefined ? "" :
        "The per-topic data of " + d.systems[i] + " is not in this page: riskeval risk --topics " + d.systems[i] + " gives it.";
      note.hidden = has;
    }
    var target = document.getElementById(d.key + "-topics-table");
    target = target && target.closest ? target.closest("section") || target : target;
    if (target && target.scrollIntoView) { target.scrollIntoView({ block: "start" }); }
  }

  document.querySelectorAll('script[type="application/json"][id^="rk-data-"]').forEach(function (node) {
    var d = JSON.parse(node.textContent, function (k, v) {
      // ±∞ travels as {"__inf__": ±1} (JSON has no infinity)
      if (v !== null && typeof v === "object" && Object.keys(v).length === 1 && typeof v.__inf__ === "number") { return v.__inf__ * Infinity; }
      return v;
    });
    PALETTE = d.colours.focus;
    LOSS = d.colours.loss;
    GAIN = d.colours.gain;
    var st = { d: d, alpha: d.alpha, system: d.pt.systems[0], focus: {} };
    d.focus.forEach(function (i) { st.focus[i] = true; });
    states[d.key] = st;
    document.querySelectorAll('select.rk-alpha[data-key="' + d.key + '"]').forEach(function (s) {
      s.addEventListener("change", function () { setAlpha(st, Number(s.value)); });
    });
    document.querySelectorAll('select.rk-system[data-key="' + d.key + '"]').forEach(function (s) {
      var focus = d.pt.systems.filter(function (i) { return st.focus[i]; });
      var rest = d.pt.systems.filter(function (i) { return !st.focus[i]; })
        .sort(function (a, b) { return d.systems[a].localeCompare(d.systems[b]); });
      [["focus", focus], ["systems", rest]].forEach(function (grp) {
        if (!grp[1].length) { return; }
        var og = el("optgroup", { label: grp[0] });
        grp[1].forEach(function (i) { og.appendChild(el("option", { value: String(i) }, d.systems[i])); });
        s.appendChild(og);
      });
      s.value = String(st.system);
      s.addEventListener("change", function () { setSystem(st, Number(s.value)); });
    });
    [d.key + "-risk-table", d.key + "-topics-table"].forEach(function (id) {
      var t = document.getElementById(id);
      if (t) { sortable(t); }
    });
    var risk = document.getElementById(d.key + "-risk-table");
    if (risk) {
      var pick = function (e) {
        var tr = e.target && e.target.closest ? e.target.closest("tr[data-system]") : null;
        if (tr && risk.contains(tr)) { openSystem(st, Number(tr.getAttribute("data-system"))); }
      };
      risk.addEventListener("click", pick);
      risk.addEventListener("keydown", function (e) { if (e.key === "Enter") { pick(e); } });
    }
    redraw(st);
  });

  document.querySelectorAll("input.rk-filter").forEach(function (box) {
    var table = document.getElementById(box.getAttribute("data-table"));
    if (!table) { return; }
    box.addEventListener("input", function () { table.rkFilter = box.value; show(table); });
  });

  var tabs = document.querySelectorAll(".rk-tabs button");
  function openTab(key) {
    tabs.forEach(function (b) { b.setAttribute("aria-selected", String(b.getAttribute("data-tab") === key)); });
    document.querySelectorAll(".rk-measure").forEach(function (m) { m.hidden = m.getAttribute("data-measure") !== key; });
  }
  tabs.forEach(function (b) { b.addEventListener("click", function () { openTab(b.getAttribute("data-tab")); }); });
  if (tabs.length) { openTab(tabs[0].getAttribute("data-tab")); }

  /* printing opens every folded block (the print style shows every row and hides the controls) */
  var opened = [];
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details:not([open])").forEach(function (x) { x.open = true; opened.push(x); });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (x) { x.open = false; });
    opened = [];
  });
}());
