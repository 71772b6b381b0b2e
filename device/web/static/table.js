/* The table's live page: every "state" event carries the whole state; the page redraws from it. */
"use strict";
(function () {
  var COLOURS = ["#9b1d20", "#1d5f9b", "#2e7d32", "#b26a00", "#6a1b9a"];
  var chart = null, chartKey = "";
  var L = {waiting: "Waiting for the first deal", to_play: "{player} to play", deal: "Deal",
           total: "Total", none_yet: "None yet.", live: "Live", reconnecting: "Reconnecting…",
           chart_deal: "deal", chart_total: "total"};  // the page's words; each state brings them in the device's language
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function fill(node, children) { node.textContent = ""; children.forEach(function (c) { node.appendChild(c); }); }

  function labels(words) {
    for (var k in (words || {})) L[k] = words[k];
    var nodes = document.querySelectorAll("[data-label]");
    for (var i = 0; i < nodes.length; i++) nodes[i].textContent = L[nodes[i].getAttribute("data-label")];
  }

  function renderDeal(d) {
    var game = d ? d.game : "";
    document.body.setAttribute("data-game", game);
    if (!d) { $("deal-title").textContent = L.waiting; return; }
    $("deal-title").textContent = d.title;  // each game writes its lines in the device's language
    $("deal-line").textContent = d.line;
    $("target").textContent = d.outcome;
    fill($("trick"), d.trick.map(function (p) {
      var s = el("span", p.card.name); s.title = p.name; s.setAttribute("data-code", p.card.code); return s;
    }));
    $("to-play").textContent = d.to_play ? L.to_play.replace("{player}", d.to_play) : "";
    $("tricks-count").textContent = String(d.tricks.length);
    fill($("tricks"), d.tricks.map(function (tr) {
      return el("li", tr.cards.map(function (c) { return c.card.name; }).join(" ") + " — " + tr.winner);
    }));
  }

  function renderSheet(sheet) {
    fill($("sheet-head"), [el("th", L.deal), el("th", sheet.heading || "")].concat(sheet.names.map(function (n) { return el("th", n, "num"); })));
    fill($("sheet-body"), sheet.rows.map(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", String(r.number)));
      tr.appendChild(el("td", r.label, "result"));
      r.scores.forEach(function (s, i) { tr.appendChild(el("td", s + " / " + r.totals[i], "num")); });
      return tr;
    }));
    fill($("sheet-totals"), [el("th", L.total), el("th", "")].concat(sheet.totals.map(function (t) { return el("th", String(t), "num"); })));
    drawChart(sheet);
  }

  function drawChart(sheet) {
    var box = $("chart");
    if (!window.uPlot || !sheet.rows.length) { if (chart) { chart.destroy(); chart = null; } box.textContent = ""; return; }
    var xs = sheet.rows.map(function (r) { return r.number; });
    var data = [xs].concat(sheet.running);
    var key = sheet.names.join("|") + "|" + L.chart_deal;  // a new language draws new axes
    if (chart && key === chartKey) { chart.setData(data); return; }
    if (chart) chart.destroy();
    box.textContent = "";
    chartKey = key;
    chart = new uPlot({
      width: Math.min(box.clientWidth || 600, 900), height: 240, scales: {x: {time: false}},
      axes: [{label: L.chart_deal, incrs: [1, 2, 5, 10, 20, 50, 100]}, {label: L.chart_total}],
      series: [{label: L.chart_deal}].concat(sheet.names.map(function (n, i) {
        return {label: n, stroke: COLOURS[i % COLOURS.length], width: 2};
      }))
    }, data, box);
  }

  function renderHistory(history) {
    if (!history.length) { fill($("history"), [el("li", L.none_yet)]); return; }
    fill($("history"), history.map(function (g) {
      return el("li", g.label + ": " + g.names.map(function (n, i) { return n + " " + g.totals[i]; }).join(", "));
    }));
  }

  function render(state) {
    if (state.lang) document.documentElement.lang = state.lang;
    labels(state.labels);
    $("title").textContent = state.title || "Tarotmate";
    document.title = state.title || "Tarotmate table";
    $("club").textContent = state.club && state.club.text ? " · " + state.club.text : "";
    renderDeal(state.deal);
    renderSheet(state.sheet);
    renderHistory(state.history || []);
    document.body.setAttribute("data-version", String((+document.body.getAttribute("data-version") || 0) + 1));
  }

  var es = new EventSource("/api/events");
  es.addEventListener("state", function (e) { render(JSON.parse(e.data)); $("status").textContent = L.live; });
  es.onerror = function () { $("status").textContent = L.reconnecting; };
})();
