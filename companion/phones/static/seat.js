// The seat page: shows what the tablet sends for this seat and sends this seat's picks and
// Confirm back. Plain JavaScript, no build step. Every text from the server is set as text
// (never as HTML): player names and card names are the table's, not the page's.
(function () {
  "use strict";
  if (location.pathname !== "/seat") {
    history.replaceState(null, "", "/seat");  // the key stays in the cookie, not in the address
  }
  var $ = function (id) { return document.getElementById(id); };
  var ws = null, state = null, retry = 250, pending = null, closedForGood = false, sent = 0, renders = 0, noteLife = 0, photoAt = null;

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function note(text, ok) {
    var n = $("note");
    if (!text) { n.hidden = true; return; }
    n.textContent = text; n.className = ok ? "note ok" : "note"; n.hidden = false;
    noteLife = ok ? 2 : 1;  // "Done" outlives the state it brought; a refusal goes with the next move
  }
  function link(text, cls) { var l = $("link"); l.textContent = text; l.className = "link " + (cls || ""); }

  function send(doc) {
    if (!ws || ws.readyState !== 1) return false;
    ws.send(JSON.stringify(doc)); sent += 1;
    return true;
  }

  function connect() {
    if (closedForGood) return;
    link("connecting", "");
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(proto + location.host + "/ws");
    ws.onopen = function () {
      retry = 250; link("connected", "up");
      if (pending) send(pending);  // an action whose answer was lost: the server answers it once
    };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "state") {
        if (state && state.at !== msg.at && --noteLife <= 0) note("");  // old words go as the game moves on
        state = msg; render();
      }
      else if (msg.type === "ok") { if (pending && pending.id === msg.id) pending = null; note(msg.text, true); }
      else if (msg.type === "refused") {
        if (pending && msg.id && pending.id === msg.id) pending = null;
        note(msg.reason, false);
      }
      else if (msg.type === "bye") { closedForGood = true; gone(msg.reason); }
    };
    ws.onclose = function () {
      link("reconnecting", "down");
      if (closedForGood) return;
      // a refused upgrade (a forgotten seat) looks like any dropped connection: ask the server
      fetch("/joined", { credentials: "same-origin", cache: "no-store" }).then(function (r) {
        if (r.status === 403) { closedForGood = true; gone("This phone is not joined to a seat of the game now."); }
        else { setTimeout(connect, retry); retry = Math.min(retry * 2, 3000); }
      }, function () { setTimeout(connect, retry); retry = Math.min(retry * 2, 3000); });
    };
  }

  function gone(text) {
    $("gonetext").textContent = (text || "") + " Open the tablet's Phones panel and scan your seat's code.";
    $("gone").hidden = false;
    if (ws) try { ws.close(); } catch (e) { /* already closed */ }
  }

  function render() {
    var s = state;
    renders += 1;
    $("me").textContent = s.you.name + " - " + s.title;
    $("chip").style.background = s.you.colour;
    document.title = s.you.name + ": " + s.title;
    $("header").textContent = s.header;
    var turn = $("turn");
    if (s.over) { turn.textContent = "Game over"; turn.className = "turn"; }
    else if (s.turn.app) { turn.textContent = "The app is choosing " + s.turn.name + "'s move"; turn.className = "turn app"; }
    else if (s.dice) {
      turn.textContent = s.dice.kind === "draw" ? (s.dice.mine && s.dice.who ? "Your draw" : "A draw is awaited")
        : (s.dice.mine && s.dice.who ? "Your roll" : "A roll is awaited");
      turn.className = s.dice.mine && s.dice.who ? "turn mine" : "turn";
    }
    else if (s.turn.mine) { turn.textContent = "Your decision"; turn.className = "turn mine"; }
    else if (s.turn.name) { turn.textContent = s.turn.name + " is deciding"; turn.className = "turn"; }
    else { turn.textContent = ""; turn.className = "turn"; }
    $("prompt").textContent = s.prompt;
    renderDecision(s);
    renderRoll(s);
    renderPlayers(s);
    renderTodo(s);
    renderLog(s);
  }

  function renderDecision(s) {
    var d = s.decision, box = $("decision"), confirm = $("confirm");
    if (!d) {
      box.hidden = true; confirm.disabled = true;
      confirm.textContent = s.turn.mine ? "Confirm" : "Waiting for " + (s.turn.name || "the table");
      return;
    }
    box.hidden = false;
    var trail = $("trail"); clear(trail);
    d.trail.forEach(function (t) {
      var b = el("button", t.label + "  \u2715"); b.type = "button";
      b.setAttribute("aria-label", "Change: " + t.label);
      b.onclick = function () { send({ type: "back", at: s.at, field: t.field }); };
      trail.appendChild(b);
    });
    $("restart").hidden = d.trail.length === 0;
    var q = d.question, opts = $("options"), search = $("search");
    clear(opts);
    if (q) {
      $("question").textContent = q.text;
      opts.className = q.kind === "count" ? "options counts" : "options";
      q.options.forEach(function (label, i) {
        var b = el("button", label); b.type = "button"; b.dataset.i = i;
        b.onclick = function () { send({ type: "pick", at: s.at, field: q.field, option: i }); };
        opts.appendChild(b);
      });
      search.hidden = q.options.length <= 12;
      if (search.hidden) search.value = "";
      filter();
    } else {
      $("question").textContent = d.complete ? "Ready: tap Confirm." : "";
      search.hidden = true;
    }
    if (d.complete) {
      confirm.disabled = false;
      confirm.textContent = "Confirm: " + d.complete.label;
      confirm.onclick = function () {
        pending = { type: "act", at: s.at, id: newId(), action: d.complete.action };
        confirm.disabled = true;
        if (!send(pending)) note("Not connected: your move is sent when the connection is back.", false);
      };
    } else {
      confirm.disabled = true;
      confirm.textContent = "Confirm";
    }
  }

  function filter() {
    var text = $("search").value.trim().toLowerCase();
    Array.prototype.forEach.call($("options").children, function (b) {
      b.hidden = text !== "" && b.textContent.toLowerCase().indexOf(text) < 0;
    });
  }

  function renderRoll(s) {
    var box = $("roll");
    if (!s.dice) { box.hidden = true; return; }
    box.hidden = false;
    var d = s.dice;
    $("rolltext").textContent = (d.who ? d.who + ": " : "") + d.roll +
      (d.kind === "draw" ? ": draw at the table, then tap what was drawn on the tablet." :
        " (" + d.count + (d.count === 1 ? " die" : " dice") + ") - throw at the table; the board or the tablet reads it.");
    $("photo").hidden = d.kind !== "dice" || !d.mine;
    if (photoAt !== s.at) { $("photook").hidden = true; }
  }

  function lines(dl, rows) {
    clear(dl);
    rows.forEach(function (r) {
      var row = el("div", null, r[2] === "block" ? "block" : "");
      if (r[0]) row.appendChild(el("dt", r[0]));
      row.appendChild(el("dd", r[1]));
      dl.appendChild(row);
    });
  }

  function renderPlayers(s) {
    var list = $("otherlist"); clear(list);
    s.players.forEach(function (p) {
      var rows = p.lines.slice();
      if (p.score !== null && p.score !== undefined) rows.unshift(["Score", String(p.score), ""]);
      if (p.you) { lines($("mylines"), rows); return; }
      var box = el("div", null, "player"), h = el("h3");
      var chip = el("span", null, "chip"); chip.style.background = p.colour; h.appendChild(chip);
      h.appendChild(el("span", p.name + (p.active ? " (to act)" : "")));
      box.appendChild(h);
      var dl = el("dl"); lines(dl, rows); box.appendChild(dl);
      list.appendChild(box);
    });
  }

  function renderTodo(s) {
    var ul = $("todo"); clear(ul);
    s.todo.forEach(function (t) { ul.appendChild(el("li", t)); });
    $("table").hidden = s.todo.length === 0;
  }

  function renderLog(s) {
    var ol = $("log"); clear(ol);
    s.log.forEach(function (e) {
      var li = el("li", e.text, e.undone ? "undone" : "");
      e.effects.forEach(function (f) { li.appendChild(el("div", f, "fx")); });
      ol.appendChild(li);
    });
  }

  function newId() {
    var a = new Uint8Array(9); crypto.getRandomValues(a);
    return Array.prototype.map.call(a, function (x) { return ("0" + x.toString(16)).slice(-2); }).join("");
  }

  $("photook").onclick = function () {
    if (state && photoAt === state.at) send({ type: "photo_ok", at: photoAt });
    $("photook").hidden = true;
  };
  $("search").addEventListener("input", filter);
  $("restart").onclick = function () { if (state) send({ type: "back", at: state.at, field: "" }); };
  $("photofile").addEventListener("change", function () {
    var f = $("photofile").files[0];
    if (!f || !state) return;
    var at = state.at;
    $("photonote").textContent = "Reading the dice...";
    $("photook").hidden = true;
    fetch("/photo?at=" + at, { method: "POST", body: f, credentials: "same-origin",
                               headers: { "Content-Type": f.type || "application/octet-stream" } })
      .then(function (r) { return r.json(); })
      .then(function (j) {
        $("photonote").textContent = j.reason || j.text || "";
        if (j.confirm && state && state.at === at) {
          photoAt = at;
          $("photook").textContent = "Record this roll: " + j.values.join(", ");
          $("photook").hidden = false;
        }
      }, function () { $("photonote").textContent = "The photo could not be sent."; });
    $("photofile").value = "";
  });
  // for the browser tests: what the page holds, and a way to send what a page could send
  window.seatPage = { sent: function () { return sent; }, state: function () { return state; },
                      renders: function () { return renders; }, send: send };
  connect();
})();
