/* The match page's screen-reader mode (docs/players.md): the table as text, single-key
   queries answered in a live region, announcements of "your move", each reveal and the result,
   and moves typed or chosen from a list. It reads only what match.js read from the API (the
   player's own view and the public step events), so it can say nothing the page may not show.
   match.js sends every render as "facedown:match" and plays what this sends as "facedown:move". */
"use strict";

(() => {
  const F = Facedown;
  const { _, el, seatName, awaitingMe } = F;
  const $ = (id) => document.getElementById(id);
  const panel = $("reader");
  if (!panel) return;
  const log = $("reader-log");
  const LOG_LINES = 30;

  let match = null;
  let resolved = []; // step_resolved events with public data, oldest first
  let heardSeq = null; // the last resolution announced (null: none read yet)
  let heardTurn = null; // "step:phase" of the last "your move" announced
  let heardEnd = false;
  let chosen = []; // a choose-k move being put together, one value at a time

  const on = () => document.body.dataset.reader === "on";
  const list = (items) => (items && items.length ? items.join(", ") : _("none"));
  const v = () => (match && match.view) || {};
  const seated = () => match && match.you !== null && match.you !== undefined;
  const name = (i) => {
    const seat = match.seats[i];
    if (!seat) return _("seat %(number)s", { number: i + 1 });
    if (i === match.you) return _("%(name)s (you)", { name: seatName(seat) });
    // Two bots of one kind read alike: the seat tells them apart.
    const alike = match.seats.filter((s) => seatName(s) === seatName(seat)).length > 1;
    return alike ? _("%(name)s, seat %(number)s", { name: seatName(seat), number: i + 1 }) : seatName(seat);
  };
  const perSeat = (values, show = String) => match.seats.map((s, i) => name(i) + ": " + show(values[i])).join("; ");

  // ---- speaking ----------------------------------------------------------------------------

  /** One line in the live log (role=log: a screen reader reads each line as it is added). */
  function say(text) {
    if (!text) return;
    log.append(el("p", {}, text));
    while (log.children.length > LOG_LINES) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight; // the newest line in view for a sighted helper
  }

  // ---- the table in words, one function per query ------------------------------------------

  function orangutan(o) {
    const needs = Object.entries(o.requires || {}).map(([colour, n]) => n + " " + colour).join(", ");
    return _("%(name)s (%(points)s points, needs %(needs)s)", { name: o.name, points: o.points, needs: needs || _("nothing") });
  }

  /** p: the pot (sealed-bid games), the trick, Memory's board or Xato's table. */
  function potText() {
    const view = v();
    if (!match.view) return _("Nothing on the table yet.");
    if (Array.isArray(view.grid)) {
      const down = [], up = [], gone = [];
      view.grid.forEach((cell, i) => {
        if (cell === null) down.push(String(i));
        else if (cell === "taken") gone.push(String(i));
        else up.push(_("%(position)s showing %(card)s", { position: i, card: cell }));
      });
      return _("Board: face down %(down)s. Face up: %(up)s. Taken: %(gone)s. Pairs left: %(left)s.",
        { down: list(down), up: list(up), gone: list(gone), left: view.pairs_left });
    }
    if (Array.isArray(view.trick)) {
      const plays = view.trick.map((t) => _("%(name)s played %(card)s", { name: name(t.seat), card: t.card }));
      const parts = [_("Trick %(number)s of %(count)s: %(plays)s.", { number: view.trick_number, count: view.tricks, plays: list(plays) })];
      if (view.ranked && view.ranked.length) parts.push(_("Ranked: %(names)s.", { names: view.ranked.map(name).join(", ") }));
      if (view.layout) parts.push(_("Orang-utans on display: %(list)s.", { list: list(view.layout.map(orangutan)) }));
      return parts.join(" ");
    }
    if (Array.isArray(view.pool)) {
      const parts = [];
      if (view.pool.length) parts.push(_("Face-up pool: %(cards)s.", { cards: view.pool.join(", ") }));
      parts.push(_("Discard pile: %(count)s cards, %(top)s on top.", { count: view.discard_count, top: view.discard_top || _("none") }));
      if (view.exposed && view.exposed.length) parts.push(_("Exposed: %(cards)s.", { cards: view.exposed.join(", ") }));
      if (view.target !== null && view.target !== undefined) parts.push(_("Target of the call: %(name)s.", { name: name(view.target) }));
      if (view.pending) parts.push(_("Called: %(card)s; claims are open.", { card: view.pending.card }));
      return parts.join(" ");
    }
    if (Array.isArray(view.pot)) {
      if (match.status !== "active") return _("No pot: the match is over.");
      const mode = view.mode === "vulture" ? " " + _("Vulture: the lowest unique bid takes it.") :
        view.mode ? " " + _("Mice: the highest unique bid takes it.") : "";
      const rest = view.remaining_prizes ? " " + _("Still to come: %(cards)s", { cards: list(view.remaining_prizes) }) + "." : "";
      return _("Pot: %(cards)s.", { cards: list(view.pot) }) + mode + rest;
    }
    return _("The table: %(fields)s.", { fields: F.valueLabel(view) });
  }

  /** h: the player's own hand (Xato: and how many life cards, never which). */
  function handText() {
    if (!seated()) return _("You are watching: you hold no cards.");
    const view = v();
    if (!Array.isArray(view.hand)) {
      return Array.isArray(view.grid) ? _("Memory has no hand: press p for the board, t for the pairs taken.") : _("You hold no cards.");
    }
    const parts = [_("Your hand: %(cards)s.", { cards: list(view.hand.map(String)) })];
    if (Array.isArray(view.life_count)) parts.push(_("Life cards face down: %(count)s.", { count: view.life_count[match.you] }));
    if (view.removed_bids && view.removed_bids.length) parts.push(_("Removed this deal: %(cards)s.", { cards: view.removed_bids.join(", ") }));
    return parts.join(" ");
  }

  /** w: who has moved in this step: sealed cards are "face down", never what they are. */
  function sealedText() {
    if (match.status !== "active") return statusText();
    const phase = match.phase || {};
    const acting = phase.to_act || [];
    if (phase.kind === "turn") return acting.length ? _("%(name)s to move.", { name: name(acting[0]) }) : _("Resolving…");
    const lines = acting.map((i) => {
      const done = (phase.submitted || []).includes(i);
      if (i !== match.you && !match.disclose_submitted) return _("%(name)s: not shown", { name: name(i) });
      if (done) return i === match.you ? _("%(name)s: card placed", { name: name(i) }) : _("%(name)s: card placed face down", { name: name(i) });
      return _("%(name)s: no card yet", { name: name(i) });
    });
    return lines.join("; ") + ".";
  }

  /** s: the scores. */
  function scoresText() {
    return _("Scores: %(scores)s.", { scores: perSeat(match.seats.map((s) => s.score)) });
  }

  /** t: what each seat has taken. */
  function takenText() {
    const view = v();
    const cards = (xs) => list((xs || []).map(String));
    if (Array.isArray(view.collections)) {
      const won = (view.won || []).map((ws) => list(ws.map((w) => _("%(name)s (%(points)s)", w))));
      return _("Collections: %(cards)s.", { cards: perSeat(view.collections, cards) }) + " " +
        _("Orang-utans won: %(list)s.", { list: perSeat(won, String) });
    }
    if (Array.isArray(view.hand_count) && Array.isArray(view.life_count)) {
      return _("Cards held: %(hands)s. Life cards: %(lives)s.", { hands: perSeat(view.hand_count), lives: perSeat(view.life_count) });
    }
    const piles = view.won || view.taken;
    if (Array.isArray(piles)) return _("Taken: %(cards)s.", { cards: perSeat(piles, cards) });
    return _("Nothing is taken in this game.");
  }

  /** c: every clock and the step's deadline. */
  function clocksText() {
    const parts = [];
    if (Array.isArray(match.clocks)) {
      const now = Date.now();
      parts.push(_("Clocks: %(clocks)s.", { clocks: perSeat(match.clocks, (clock) => {
        if (!clock) return _("none");
        const state = F.clock.seatState(match, clock, now, {});
        return state.running ? state.text + " " + F.clock.TEXT.running : state.text;
      }) }));
    }
    const deadline = match.status === "active" && match.phase && match.phase.deadline;
    if (deadline) parts.push(_("Deadline: %(time)s, %(left)s.", { time: F.localTime(deadline), left: F.countdown(deadline) }));
    return parts.length ? parts.join(" ") : _("No clock and no deadline in this match.");
  }

  function outcome(d) {
    const pot = (d.pot || []).join(", ");
    if (d.winner !== null && d.winner !== undefined) return _("%(name)s takes %(pot)s", { name: name(d.winner), pot });
    if (d.outcome === "carried" || d.outcome === "cancelled") return _("Tie: nobody takes %(pot)s; it stays in the pot", { pot });
    return _("Tie: %(pot)s is discarded", { pot });
  }

  /** A resolved step in words, from its public data only. */
  function revealText(event) {
    const d = event.data;
    if (Array.isArray(d.bids)) {
      const bids = d.bids.map((bid, i) => _("%(name)s played %(card)s", { name: name(i), card: bid }));
      return _("Step %(step)s revealed: %(bids)s.", { step: event.step, bids: bids.join(", ") }) + " " + outcome(d) + ".";
    }
    if ("flip" in d && "position" in d) {
      const card = d.card === null || d.card === undefined ? _("a card hidden from you") : d.card;
      let text = _("%(name)s flipped position %(position)s: %(card)s.", { name: name(d.seat), position: d.position, card });
      if (d.result === "pair") text += " " + _("A pair: %(name)s takes %(cards)s.", { name: name(d.seat), cards: list(d.pair) });
      else if (d.result === "miss") text += " " + _("No pair.");
      return text;
    }
    const who = name(d.seat);
    if (d.kind === "play" && d.card) {
      return _("%(name)s played %(card)s.", { name: who, card: d.card }) +
        (d.ranked ? " " + _("Ranked: %(names)s.", { names: d.ranked.map(name).join(", ") }) : "");
    }
    if (d.kind === "take" && d.card) return _("%(name)s takes %(card)s.", { name: who, card: d.card });
    if (d.kind === "cash_in") {
      return d.orangutan ? _("%(name)s cashes in an orang-utan for %(points)s points.", { name: who, points: d.points }) :
        _("%(name)s does not cash in.", { name: who });
    }
    if (d.kind === "call") {
      const text = _("%(name)s calls %(card)s at %(target)s.", { name: who, card: d.card, target: name(d.target) });
      return d.outcome ? text + " " + _("Outcome: %(outcome)s, %(points)s points.", { outcome: F.words(d.outcome), points: d.points }) : text;
    }
    if (d.kind === "life") return _("Every life card is chosen, face down.");
    if (d.kind === "sacrifice") return d.sacrificed ? _("%(name)s sacrifices a hand card as a new life card.", { name: who }) : _("%(name)s declines to sacrifice.", { name: who });
    const skip = new Set(["step", "scores", "over", "phase"]);
    const parts = Object.entries(d).filter(([k, x]) => !skip.has(k) && x !== null && !(Array.isArray(x) && !x.length))
      .map(([k, x]) => F.words(k) + " " + F.valueLabel(x));
    return _("Step %(step)s: %(summary)s.", { step: event.step, summary: parts.join(", ") });
  }

  /** l: the last resolved step. */
  function lastText() {
    const last = resolved[resolved.length - 1];
    if (last) return revealText(last);
    const history = v().history;
    if (Array.isArray(history) && history.length && Array.isArray(history[history.length - 1].bids)) {
      const h = history[history.length - 1];
      return revealText({ step: h.step, data: h });
    }
    return _("Nothing has been revealed yet.");
  }

  function resultText() {
    const r = match.result || {};
    const winners = r.winners || [];
    const head = !winners.length ? _("Match over: nobody wins.") : winners.length > 1 ?
      _("Match over: %(names)s share the win.", { names: winners.map(name).join(_(" and ")) }) :
      _("Match over: %(names)s won.", { names: name(winners[0]) });
    return head + " " + _("Final scores: %(scores)s.", { scores: perSeat(r.scores || match.seats.map((s) => s.score)) });
  }

  function statusText() {
    if (match.status === "finished") return resultText();
    if (match.status === "aborted") return _("This match was aborted.");
    if (match.status === "open") return _("The match has not started yet.");
    return awaitingMe(match) ? yourMoveText() : sealedText();
  }

  function yourMoveText() {
    if ((match.phase || {}).kind === "reveal") return _("Your move: revealing your committed card…");
    const keys = [...new Set(legal().map((m) => Object.keys(m)[0]))];
    const what = keys.length === 1 && keys[0] === "card" ? _("Your move: pick a card.") :
      _("Your move: %(what)s.", { what: keys.map(F.words).join(", ") || _("move") });
    return Array.isArray(v().pot) ? what + " " + potText() : what;
  }

  const QUERIES = {
    p: potText, h: handText, s: scoresText, t: takenText, w: sealedText, c: clocksText, l: lastText,
    a: () => [statusText(), potText(), handText(), sealedText(), scoresText(), takenText(), clocksText()].join(" "),
    "?": () => _("Keys: p pot or table, h hand, s scores, t taken cards, w who has moved, c clocks, l last reveal, a everything, m move field, ? this help. In the move field type a move and Enter, or one of these letters and Enter; Escape leaves the field."),
  };

  // ---- moves -------------------------------------------------------------------------------

  const legal = () => (match && awaitingMe(match) ? match.legal_moves || [] : []);
  /** The move templates that ask for k values at once ({"life": {"choose": k, "from": […]}}). */
  const template = (move) => {
    const [key, value] = Object.entries(move)[0] || [];
    return value && typeof value === "object" && "choose" in value && Array.isArray(value.from) ? { key, ...value } : null;
  };

  function label(move) {
    const [key, value] = Object.entries(move)[0];
    const grid = v().grid;
    if (key === "flip" && Array.isArray(grid)) {
      const cell = grid[value];
      const state = cell === null || cell === undefined ? _("face down") : _("showing %(card)s", { card: cell });
      return _("Flip position %(position)s (%(state)s)", { position: value, state });
    }
    if (value && typeof value === "object" && value.orangutan) {
      const o = (v().layout || []).find((x) => x.id === value.orangutan);
      return F.words(key) + " " + (o ? orangutan(o) : value.orangutan);
    }
    return F.moveLabel(move);
  }

  /** The words a player may type for a move: its label, or its value alone ("5", "7H"). */
  function spellings(move) {
    const [key, value] = Object.entries(move)[0];
    const found = [label(move), F.valueLabel(value), String(value)];
    if (value && typeof value === "object" && value.orangutan) {
      const o = (v().layout || []).find((x) => x.id === value.orangutan);
      found.push(value.orangutan, o ? o.name : "");
    }
    if (key && Object.keys(move).length === 1) found.push(key + " " + value);
    return found.map(norm);
  }
  const norm = (text) => String(text).trim().toLowerCase().replace(/\s+/g, " ");

  function renderMoves() {
    const moves = legal();
    const select = $("reader-moves");
    const shape = moves.map(template).find(Boolean);
    const options = shape ? shape.from.filter((x) => !chosen.includes(x)).map((x) => ({ text: F.valueLabel(x), value: JSON.stringify(x) })) :
      moves.map((m, i) => ({ text: label(m), value: String(i) }));
    const before = select.value;
    select.replaceChildren(...options.map((o) => el("option", { value: o.value }, o.text)));
    if (options.some((o) => o.value === before)) select.value = before;
    const none = !options.length;
    select.disabled = none;
    $("reader-pick-play").disabled = none;
    $("reader-type-play").disabled = none;
    $("reader-move-help").textContent = none ? _("No move is due from you now.") : shape ?
      _("Choose %(count)s: type them (separated by spaces) or pick them one by one. Chosen: %(chosen)s.", { count: shape.choose, chosen: list(chosen.map(F.valueLabel)) }) :
      _("Type a move (for example %(example)s) and press Enter, or choose it from the list.", { example: F.valueLabel(Object.values(moves[0])[0]) });
  }

  function send(move) {
    chosen = [];
    // match.js says "Played …" once the server took it, or why not under the choices.
    document.dispatchEvent(new CustomEvent("facedown:move", { detail: move }));
  }

  /** Add values to a choose-k move; the k-th sends it. */
  function choose(shape, values) {
    for (const value of values) {
      if (!shape.from.some((x) => F.canonical(x) === F.canonical(value))) { say(_("%(move)s is not one to choose.", { move: F.valueLabel(value) })); return; }
      if (!chosen.some((x) => F.canonical(x) === F.canonical(value))) chosen.push(value);
    }
    if (chosen.length >= shape.choose) { send({ [shape.key]: chosen.slice(0, shape.choose) }); return; }
    // Counted, not named: the log outlives the choice, and Xato's life cards are never shown
    // back once sealed (the help text names them only until the move is sent).
    say(_("%(n)s of %(count)s chosen.", { n: chosen.length, count: shape.choose }));
    renderMoves();
  }

  function typed(text) {
    const wanted = norm(text);
    if (!wanted) return;
    if (wanted.length === 1 && QUERIES[wanted]) { say(QUERIES[wanted]()); return; }
    const moves = legal();
    if (!moves.length) { say(_("No move is due from you now.")); return; }
    const shape = moves.map(template).find(Boolean);
    if (shape) {
      const values = wanted.split(/[\s,]+/).map((w) => shape.from.find((x) => norm(F.valueLabel(x)) === w || norm(x) === w));
      if (values.some((x) => x === undefined)) { say(_("%(move)s is not one to choose.", { move: text.trim() })); return; }
      choose(shape, values);
      return;
    }
    const move = moves.find((m) => spellings(m).includes(wanted));
    if (move) send(move);
    else say(_("%(move)s is not a legal move now. Legal: %(moves)s.", { move: text.trim(), moves: moves.slice(0, 20).map(label).join(", ") }));
  }

  function picked() {
    const moves = legal();
    const value = $("reader-moves").value;
    const shape = moves.map(template).find(Boolean);
    if (shape) choose(shape, [JSON.parse(value)]);
    else if (moves[Number(value)]) send(moves[Number(value)]);
  }

  // ---- following the match -----------------------------------------------------------------

  function renderTable() {
    const rows = [[_("Status"), statusText()], [_("Table"), potText()], [_("Your hand"), handText()],
      [_("Who has moved"), sealedText()], [_("Scores"), scoresText()], [_("Taken"), takenText()],
      [_("Clocks"), clocksText()], [_("Last reveal"), lastText()]];
    $("reader-table").replaceChildren(...rows.flatMap(([term, text]) => [el("dt", {}, term), el("dd", {}, text)]));
  }

  /** What changed since the last render, spoken once: each new reveal, then "your move", then
      the result. */
  function announce() {
    const fresh = heardSeq === null ? [] : resolved.filter((e) => e.seq > heardSeq);
    if (resolved.length) heardSeq = resolved[resolved.length - 1].seq;
    else if (heardSeq === null) heardSeq = 0;
    for (const event of fresh) say(revealText(event));
    const phase = match.phase || {};
    const turn = match.step + ":" + phase.kind;
    if (awaitingMe(match) && turn !== heardTurn) { heardTurn = turn; chosen = []; say(yourMoveText()); }
    if (match.status === "finished" && !heardEnd) { heardEnd = true; say(resultText()); }
  }

  function update() {
    if (!match || !on()) return;
    announce();
    renderTable();
    renderMoves();
    // What the panel is at, for a sighted helper's stylesheet and the browser tests.
    const phase = match.phase || {};
    panel.dataset.status = match.status;
    panel.dataset.turn = awaitingMe(match) ? match.step + ":" + phase.kind : "";
  }

  function show(event) {
    panel.hidden = !on();
    // Switched on here: the reader starts at the mode's panel.
    if (on() && event && event.detail && event.detail.switched) panel.focus();
    // The page's own announcer would say the same things again.
    const pageAnnouncer = $("announce");
    if (pageAnnouncer) pageAnnouncer.setAttribute("aria-live", on() ? "off" : "polite");
    if (on()) { heardSeq = null; heardTurn = null; heardEnd = false; update(); }
  }

  document.addEventListener("facedown:match", (event) => {
    match = event.detail.match;
    resolved = event.detail.resolved.filter((e) => e.data);
    update();
  });
  document.addEventListener("facedown:reader", show);
  document.addEventListener("keydown", (event) => {
    if (!on() || event.ctrlKey || event.altKey || event.metaKey || !match) return;
    const target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    if (event.key === "m") { event.preventDefault(); $("reader-move").focus(); return; }
    const query = QUERIES[event.key];
    if (!query) return;
    event.preventDefault();
    say(query());
  });
  $("reader-move").addEventListener("keydown", (event) => {
    if (event.key === "Escape") { event.preventDefault(); event.target.blur(); panel.focus(); }
  });
  $("reader-type").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("reader-move");
    typed(input.value);
    input.value = "";
  });
  $("reader-pick").addEventListener("submit", (event) => { event.preventDefault(); picked(); });
  show();
})();
