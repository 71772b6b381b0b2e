/* The table's live page: every "state" event carries the whole state; the page redraws from it. */
"use strict";
(function () {
  var COLOURS = ["#9b1d20", "#1d5f9b", "#2e7d32", "#b26a00", "#6a1b9a"];
  var chart = null, chartKey = "";
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function fill(node, children) { node.textContent = ""; children.forEach(function (c) { node.appendChild(c); }); }

  function renderDeal(d) {
    if (!d) { $("deal-title").textContent = "Waiting for the first deal"; return; }
    var title = d.contract_label ? d.contract_label + (d.taker ? " by " + d.taker : "") : d.phase_label;
    if (d.partner) title += " with " + d.partner;
    $("deal-title").textContent = title;
    var line = d.phase_label + (d.phase === "play" ? " · trick " + d.trick_number : "");
    if (d.called_card) line += " · called " + d.called_card.name;
    $("deal-line").textContent = line;
    var t = "";
    if (d.target !== null) {
      t = "Attack: " + d.points + " points, " + d.oudlers + (d.oudlers === 1 ? " oudler" : " oudlers") +
          " · needs " + d.target;
      if (d.result) t += " · " + (d.result.won ? "made by " : "failed by ") + d.result.diff;
    }
    $("target").textContent = t;
    fill($("trick"), d.trick.map(function (p) {
      var s = el("span", p.card.name); s.title = p.name; s.setAttribute("data-code", p.card.code); return s;
    }));
    $("to-play").textContent = d.to_play ? d.to_play + " to play" : "";
    $("tricks-count").textContent = String(d.tricks.length);
    fill($("tricks"), d.tricks.map(function (tr) {
      return el("li", tr.cards.map(function (c) { return c.card.name; }).join(" ") + " — " + tr.winner);
    }));
  }

  function renderSheet(sheet) {
    fill($("sheet-head"), [el("th", "Deal"), el("th", "Contract")].concat(sheet.names.map(function (n) { return el("th", n, "num"); })));
    fill($("sheet-body"), sheet.rows.map(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", String(r.number)));
      tr.appendChild(el("td", r.contract + (r.taker ? " (" + r.taker + ")" : "")));
      r.scores.forEach(function (s, i) { tr.appendChild(el("td", s + " / " + r.totals[i], "num")); });
      return tr;
    }));
    fill($("sheet-totals"), [el("th", "Total"), el("th", "")].concat(sheet.totals.map(function (t) { return el("th", String(t), "num"); })));
    drawChart(sheet);
  }

  function drawChart(sheet) {
    var box = $("chart");
    if (!window.uPlot || !sheet.rows.length) { if (chart) { chart.destroy(); chart = null; } box.textContent = ""; return; }
    var xs = sheet.rows.map(function (r) { return r.number; });
    var data = [xs].concat(sheet.running);
    var key = sheet.names.join("|");
    if (chart && key === chartKey) { chart.setData(data); return; }
    if (chart) chart.destroy();
    box.textContent = "";
    chartKey = key;
    chart = new uPlot({
      width: Math.min(box.clientWidth || 600, 900), height: 240, scales: {x: {time: false}},
      axes: [{label: "deal", incrs: [1, 2, 5, 10, 20, 50, 100]}, {label: "total"}],
      series: [{label: "deal"}].concat(sheet.names.map(function (n, i) {
        return {label: n, stroke: COLOURS[i % COLOURS.length], width: 2};
      }))
    }, data, box);
  }

  function renderHistory(history) {
    if (!history.length) { fill($("history"), [el("li", "None yet.")]); return; }
    fill($("history"), history.map(function (g) {
      return el("li", g.label + ": " + g.names.map(function (n, i) { return n + " " + g.totals[i]; }).join(", "));
    }));
  }

  function render(state) {
    $("title").textContent = state.title || "Tarotmate";
    document.title = state.title || "Tarotmate table";
    $("club").textContent = state.club && state.club.text ? " · " + state.club.text : "";
    renderDeal(state.deal);
    renderSheet(state.sheet);
    renderHistory(state.history || []);
    document.body.setAttribute("data-version", String((+document.body.getAttribute("data-version") || 0) + 1));
  }

  var es = new EventSource("/api/events");
  es.addEventListener("state", function (e) { $("status").textContent = "Live"; render(JSON.parse(e.data)); });
  es.onerror = function () { $("status").textContent = "Reconnecting…"; };
})();
