/* The club pages' live updates (Server-Sent Events) and charts (uPlot, vendored). */
"use strict";
var TarotClub = (function () {
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in (attrs || {})) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function renderBoard(data) {
    var h1 = document.getElementById("evening");
    h1.textContent = data.session ? data.name + (data.round ? " · round " + data.round : "") : "No evening yet";
    var box = document.getElementById("tables");
    box.textContent = "";
    if (!data.tables.length) box.appendChild(el("p", {"class": "empty"}, "No table has published yet."));
    data.tables.forEach(function (t) {
      var a = el("article", {"class": "table", "data-table": String(t.number)});
      var h = el("h2", {}, t.name + " ");
      h.appendChild(el("small", {}, t.deals + (t.deals === 1 ? " deal" : " deals")));
      a.appendChild(h);
      if (t.last) {
        var who = t.last.taker || t.last.winner;
        var s = "Last: " + t.last.contract + (who ? " by " + who : "");
        if (t.last.won !== null) s += " — " + (t.last.won ? "made" : "failed");
        a.appendChild(el("p", {"class": "last"}, s));
      }
      var tab = el("table", {"class": "totals"});
      t.totals.forEach(function (p) {
        var tr = el("tr");
        tr.appendChild(el("td", {}, p.name));
        tr.appendChild(el("td", {"class": "num"}, String(p.score)));
        tab.appendChild(tr);
      });
      a.appendChild(tab);
      box.appendChild(a);
    });
    var body = document.querySelector("#standings tbody");
    body.textContent = "";
    data.standings.forEach(function (p, i) {
      var tr = el("tr");
      tr.appendChild(el("td", {}, String(i + 1)));
      var td = el("td");
      td.appendChild(el("a", {href: "/players/" + encodeURIComponent(p.name)}, p.name));
      tr.appendChild(td);
      tr.appendChild(el("td", {"class": "num"}, String(p.score)));
      tr.appendChild(el("td", {"class": "num"}, String(p.deals)));
      body.appendChild(tr);
    });
  }
  function follow(url, onChange) {
    var status = document.getElementById("status");
    var es = new EventSource(url);
    es.addEventListener("change", function () { onChange(); if (status) status.textContent = "Live"; });
    es.onerror = function () { if (status) status.textContent = "Reconnecting…"; };
    return es;
  }
  function liveBoard(big) {
    var q = location.search;
    function refresh() {
      fetch("/api/board" + q, {cache: "no-store"}).then(function (r) { return r.json(); }).then(renderBoard);
    }
    follow("/api/events", refresh);
  }
  function runningChart(target, totals, label) {
    if (!window.uPlot || !totals.length) { target.textContent = totals.length ? "" : "No deal yet."; return; }
    var xs = totals.map(function (_, i) { return i + 1; });
    var width = Math.min(target.clientWidth || 600, 900);
    return new uPlot({
      width: width, height: 260, scales: {x: {time: false}},
      axes: [{label: "deal", incrs: [1, 2, 5, 10, 20, 50, 100]}, {label: "total"}],
      series: [{label: "deal"}, {label: label, stroke: "#9b1d20", width: 2}]
    }, [xs, totals], target);
  }
  return {liveBoard: liveBoard, runningChart: runningChart, follow: follow, el: el};
})();
