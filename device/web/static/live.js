// The live view: a snapshot a second, the zones, the outlines found and the cards' names drawn over it.
(function () {
  "use strict";
  const canvas = document.getElementById("live");
  const ctx = canvas.getContext("2d");
  const adviceList = document.getElementById("advice");
  const measures = document.getElementById("measures");
  const status = document.getElementById("status");
  let shown = -1;
  window.tarotmateLive = { frames: 0, state: null };

  function path(points) {
    ctx.beginPath();
    points.forEach(function (p, i) {
      const x = p[0] * canvas.width, y = p[1] * canvas.height;
      if (i === 0) { ctx.moveTo(x, y); } else { ctx.lineTo(x, y); }
    });
    ctx.closePath();
  }

  function draw(image, state) {
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    ctx.drawImage(image, 0, 0);
    ctx.lineWidth = 2;
    ctx.font = "bold 14px sans-serif";
    (state.zones || []).forEach(function (z) {
      ctx.strokeStyle = "rgba(80, 160, 255, 0.8)";
      ctx.setLineDash([6, 4]);
      path(z.polygon);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = "rgba(80, 160, 255, 0.9)";
      ctx.fillText(z.name, z.polygon[0][0] * canvas.width + 4, z.polygon[0][1] * canvas.height + 16);
    });
    (state.quads || []).forEach(function (q) {
      ctx.strokeStyle = "rgba(255, 200, 0, 0.9)";
      path(q);
      ctx.stroke();
    });
    (state.cards || []).forEach(function (c) {
      if (!c.corners || c.corners.length !== 4) { return; }
      ctx.strokeStyle = "rgba(0, 230, 90, 0.95)";
      path(c.corners);
      ctx.stroke();
      const x = c.corners[0][0] * canvas.width, y = c.corners[0][1] * canvas.height;
      const label = c.card || "?";
      ctx.fillStyle = "rgba(0, 0, 0, 0.6)";
      ctx.fillRect(x, y - 16, ctx.measureText(label).width + 6, 18);
      ctx.fillStyle = "#fff";
      ctx.fillText(label, x + 3, y - 2);
    });
  }

  function showAdvice(state) {
    adviceList.textContent = "";
    (state.advice || []).forEach(function (a) {
      const li = document.createElement("li");
      li.textContent = a.text;
      li.dataset.code = a.code;
      if (a.code === "ok") { li.className = "ok"; }
      adviceList.appendChild(li);
    });
    const m = state.measures;
    if (m) {
      measures.textContent = "light " + m.light.level.toFixed(2) + " · sharpness " + m.sharpness.toFixed(3) +
        " · cards " + (m.card_height_px === null ? "—" : Math.round(m.card_height_px) + " px");
    }
  }

  function tick() {
    fetch("/api/live", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (state) {
      window.tarotmateLive.state = state;
      if (state.advice && state.advice.length) { showAdvice(state); }
      if (!state.version || state.version === shown) { return; }
      const image = new Image();
      image.onload = function () {
        draw(image, state);
        shown = state.version;
        window.tarotmateLive.frames += 1;
        status.textContent = "Updated " + new Date().toLocaleTimeString();
      };
      image.src = "/api/live.jpg?v=" + state.version;
    }).catch(function () {
      status.textContent = "No connection to the table.";
    }).finally(function () {
      setTimeout(tick, 1000);
    });
  }
  tick();
}());
