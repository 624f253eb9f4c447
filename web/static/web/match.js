/* The match page: follows the match's stream (else the events long-poll, else polling), reads
   GET /api/v1/matches/{id} with If-None-Match and /events?after=N on every change,
   plays moves (sealed, or commit-reveal computed in the browser), animates reveals and replays
   finished matches from their step_resolved events. */
"use strict";

(() => {
  const F = Facedown;
  const { _, api, el, problemText, toast, seatName, awaitingMe } = F;
  const $ = (id) => document.getElementById(id);
  /** replaceChildren without the nulls of conditional parts. */
  const put = (node, ...kids) => node.replaceChildren(...kids.flat().filter((k) => k !== null && k !== undefined && k !== false));
  const root = $("match");
  const matchId = root.dataset.matchId;
  // How each game is drawn, from its record in the catalogue: {slug: {layout, prize_faces}}.
  const DRAWINGS = JSON.parse($("game-drawings").textContent);
  const GENERIC = { layout: "generic", prize_faces: "plain" };
  const STORE_PREFIX = `facedown:commit:${matchId}:`;

  let match = null;
  let etag = null;
  let events = [];
  let lastSeq = 0;
  let gameName = null;
  // The game's options as the catalogue words them (GET /games/{slug}): a view field that
  // repeats an option ("history_mode") is shown in those words, never as a raw value.
  let optionProps = {};
  let shownStep = null; // match.step of the last render: a rise means a step resolved
  let pending = false; // a move or commitment in flight
  let revealingStep = null; // the step whose reveal is in flight or done
  let fastPolls = 0;
  let replayIndex = null;
  let pollTimer = null;
  let chosen = new Set(); // choose-k selections, by "key|value"
  let armed = null; // the move selected but not yet confirmed ("confirm each move")

  // ---- reading ---------------------------------------------------------------------------

  async function loadEvents() {
    for (let page = 0; page < 50; page++) {
      const answer = await api("GET", `/matches/${matchId}/events?after=${lastSeq}`);
      if (!answer.ok) return;
      for (const event of answer.data.results) {
        events[event.seq - 1] = event;
        lastSeq = Math.max(lastSeq, event.seq);
      }
      if (!answer.data.next || !answer.data.results.length) return;
    }
  }

  async function poll() {
    clearTimeout(pollTimer);
    try {
      const answer = await api("GET", `/matches/${matchId}`, undefined,
        etag ? { "If-None-Match": etag } : {});
      if (answer.status === 200) {
        etag = answer.etag;
        const previous = match;
        match = answer.data;
        if (!gameName) {
          const game = await api("GET", `/games/${match.game}`);
          gameName = game.ok ? game.data.name : match.game;
          optionProps = (game.ok && game.data.options && game.data.options.properties) || {};
        }
        await loadEvents();
        render(previous);
        $("error").hidden = true;
        autoReveal();
      } else if (answer.status !== 304) {
        showError(problemText(answer));
        if (answer.status === 404 || answer.status === 401 || answer.status === 403) return;
      }
    } catch (err) {
      showError(_("Connection problem: %(message)s. Retrying…", err));
    }
    schedule();
  }

  // ---- live: the stream, else the long-poll, else polling ---------------------------------
  // Every event the stream (or long-poll) brings triggers one read of the match and its new
  // events, so rendering stays in one place; the timer then only guards against a silent
  // connection.
  const EVENT_TYPES = [
    "match_created", "seat_joined", "seat_left", "match_started", "step_opened", "move_submitted",
    "step_resolved", "seat_forfeited", "timeout", "match_finished", "match_aborted",
    "deadline_extended", "deadline_forced", "seat_replaced", "seat_returned",
    "proposal_made", "proposal_answered", "match_paused", "match_resumed",
    "seat_offered", "seat_offer_closed", "seat_taken_over",
  ];
  let live = null; // "stream" | "long-poll" | null (polling); shown as #match[data-live]
  const liveSet = (mode) => { live = mode; root.dataset.live = mode || "polling"; };
  let liveTimer = null;

  function nudge() {
    clearTimeout(liveTimer);
    liveTimer = setTimeout(poll, 30);
  }

  function goLive() {
    F.follow(`match:${matchId}`, `/matches/${matchId}/stream`, [...EVENT_TYPES, "chat"], (type, data) => {
      if (type === "snapshot") { liveSet("stream"); return; }
      // Chat lines ride the stream too (no event id); the chat panel keeps them by their seq.
      if (type === "chat") { if (typeof FacedownChat !== "undefined") FacedownChat.receive(data); return; }
      nudge();
    }, longPoll, () => {
      if (live === "stream") { liveSet(null); clearTimeout(pollTimer); schedule(); } // poll until back
    });
  }

  async function longPoll() {
    liveSet("long-poll");
    while (live === "long-poll" && !(match && (match.status === "finished" || match.status === "aborted"))) {
      const began = Date.now();
      let answer;
      try { answer = await api("GET", `/matches/${matchId}/events?after=${lastSeq}&wait=25`); }
      catch (err) { answer = { ok: false }; }
      if (answer.ok && answer.data.results.length) { await poll(); continue; }
      if (!answer.ok || Date.now() - began < 1000) { liveSet(null); clearTimeout(pollTimer); schedule(); return; }
    }
  }

  function schedule() {
    let delay = live ? 20000 : 1500;
    if (fastPolls > 0) { fastPolls--; delay = 350; }
    if (document.hidden) delay = 5000;
    if (match && (match.status === "finished" || match.status === "aborted")) return;
    pollTimer = setTimeout(poll, delay);
  }

  function soon() {
    fastPolls = 12;
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, 150);
  }

  /** Why the player's own move or reveal failed, under their choices (no box over the table);
      "" clears it. */
  function moveError(text) {
    $("move-error").textContent = text;
    $("move-error").hidden = !text;
  }

  function showError(text) {
    $("error").textContent = text;
    $("error").hidden = false;
  }

  // ---- helpers ---------------------------------------------------------------------------

  const seated = () => match && match.you !== null && match.you !== undefined;
  const view = () => (match && match.view) || {};
  const nameOf = (seat) => {
    const s = match.seats[seat];
    return s ? (seat === match.you ? _("%(name)s (you)", { name: seatName(s) }) : seatName(s)) : _("seat %(number)s", { number: seat + 1 });
  };
  const drawing = () => DRAWINGS[match.game] || GENERIC;
  const isCardGame = () => drawing().layout === "cards";
  const miceAndVultures = () => drawing().prize_faces === "mice_and_vultures";
  const resolvedEvents = () => events.filter((e) => e && e.type === "step_resolved");

  function stored(step) {
    try { return JSON.parse(localStorage.getItem(STORE_PREFIX + step) || "null"); } catch { return null; }
  }

  function cleanStore() {
    const over = match.status !== "active";
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(STORE_PREFIX)) continue;
      const step = Number(key.slice(STORE_PREFIX.length));
      if (over || step < match.step) localStorage.removeItem(key);
    }
  }

  /** A face-up card. kind: "bid" | "prize" | "mouse" | "vulture". */
  function cardFace(value, kind = "bid", label) {
    let k = kind;
    if (kind === "prize" && miceAndVultures()) k = value < 0 ? "vulture" : "mouse";
    const symbol = { mouse: _("mouse"), vulture: _("vulture"), prize: "♦", bid: "" }[k] || "";
    const kindName = { bid: _("card"), prize: _("prize"), mouse: _("mouse"), vulture: _("vulture") }[k] || k;
    return el("span", { class: `card face ${k}`, role: "img",
      "aria-label": label || `${kindName} ${value}` },
      el("span", { class: "value" }, value > 0 && k !== "bid" && k !== "prize" ? `+${value}` : String(value)),
      symbol ? el("span", { class: "suit", "aria-hidden": "true" }, symbol) : null);
  }

  function cardBack(label) {
    return el("span", { class: "card back", role: "img", "aria-label": label });
  }

  function flipCard(value, label, revealed) {
    return el("span", { class: `flip${revealed ? " revealed" : ""}`, role: "img", "aria-label": label },
      el("span", { class: "flip-inner" },
        el("span", { class: "card back flip-back", "aria-hidden": "true" }),
        el("span", { class: "card face bid flip-front", "aria-hidden": "true" },
          el("span", { class: "value" }, value === null || value === undefined ? "–" : String(value)))));
  }

  function flipAll(container) {
    // Two frames so the face-down state is painted before every card turns at once.
    requestAnimationFrame(() => requestAnimationFrame(() => {
      for (const card of container.querySelectorAll(".flip")) card.classList.add("revealed");
    }));
  }

  function outcomeText(entry) {
    if (!entry) return "";
    const pot = (entry.pot || []).join(", ");
    if (entry.winner !== null && entry.winner !== undefined) {
      const who = { name: nameOf(entry.winner), pot };
      if (entry.outcome === "third_player") return _("%(name)s takes %(pot)s (the two highest tied)", who);
      if (entry.outcome === "to_game_winner") return _("%(name)s takes %(pot)s (tied last turn, to the leader)", who);
      return _("%(name)s takes %(pot)s", who);
    }
    if (entry.outcome === "carried" || entry.outcome === "cancelled") return _("Tie: nobody takes %(pot)s; it stays in the pot", { pot });
    if (entry.outcome === "discarded" || entry.outcome === "removed") return _("Tie: %(pot)s is discarded", { pot });
    return "";
  }

  /** The bids of the latest resolved step: the view's history, else its event, else the piles. */
  function lastResolution() {
    const v = view();
    if (v.history && v.history.length) return v.history[v.history.length - 1];
    const resolved = resolvedEvents().filter((e) => e.data);
    const last = resolved[resolved.length - 1];
    if (last && last.step === match.step - 1) return last.data;
    if (v.piles && v.piles.some((p) => p !== null)) return { step: match.step - 1, bids: v.piles, pile: true };
    return last ? last.data : null;
  }

  // ---- rendering -------------------------------------------------------------------------

  function render(previous) {
    cleanStore();
    const resolvedNow = previous && shownStep !== null && match.step > shownStep;
    shownStep = match.step;
    if (resolvedNow) moveError("");  // an old step's failure says nothing about the new one
    if (resolvedNow) chosen = new Set();
    renderHead();
    renderJoin();
    renderSeats();
    renderTable(resolvedNow);
    renderHand();
    announce(previous, resolvedNow);
    renderHistory();
    renderResult();
    renderReplay();
    renderFooter();
    proposals.render(match, nameOf);
    conditional.render(match);
    substitutes.render(match, nameOf);
    // The screen-reader mode (reader.js) follows every render.
    document.dispatchEvent(new CustomEvent("facedown:match", { detail: { match, resolved: resolvedEvents() } }));
  }

  function renderHead() {
    const v = view();
    F.titleSet(`${gameName} · Facedown`);
    $("match-title").textContent = gameName;
    const bits = [];
    if (match.status === "active") {
      bits.push(_("step %(step)s", match));
      if (v.deals > 1) bits.push(_("deal %(deal)s of %(deals)s", v));
      if (v.turn && v.turns) bits.push(_("turn %(turn)s of %(turns)s", v));
    }
    bits.push(match.protocol === "commit-reveal" ? _("commit-reveal") : _("sealed moves"));
    if (!seated()) bits.push(_("you are watching"));
    $("match-meta").textContent = bits.join(" · ");
    $("status-line").textContent = statusText();
    $("status-line").className = `status-line${awaitingMe(match) ? " your-move" : ""}`;
    tickDeadline();
  }

  /** The live region (#announce) speaks what a sighted player sees change: a step's reveal,
      "your move" when the turn comes, the end of the match. Only what the page already shows:
      revealed cards and the reader's own view. */
  function announce(previous, resolvedNow) {
    const parts = [];
    if (resolvedNow) parts.push(revealText());
    const phase = match.phase || {};
    const before = previous && previous.phase ? previous.phase : {};
    const stillMine = previous && awaitingMe(previous) && previous.step === match.step && before.kind === phase.kind;
    const ended = match.status === "finished" && (!previous || previous.status !== "finished");
    if (ended || (awaitingMe(match) && (!stillMine || resolvedNow))) parts.push(statusText());
    const text = parts.filter(Boolean).join(" ");
    if (text) $("announce").textContent = text;
  }

  function revealText() {
    if (isCardGame()) {
      const last = lastResolution();
      if (!last || !last.bids) return "";
      const bids = last.bids.map((bid, i) => (i === match.you ? _("you played %(bid)s", { bid }) : _("%(name)s played %(bid)s", { name: seatName(match.seats[i]), bid })));
      const outcome = last.pile ? "" : ` ${outcomeText(last)}.`;
      return _("Step %(step)s revealed: %(bids)s.", { step: last.step, bids: bids.join(", ") }) + outcome;
    }
    const last = resolvedEvents().filter((e) => e.data).pop();
    return last ? _("Step %(step)s: %(summary)s.", { step: last.step, summary: summary(last.data).textContent }) : "";
  }

  function statusText() {
    const phase = match.phase || {};
    if (match.status === "open") {
      const missing = match.seats.filter((s) => !s.accepted).length;
      return interpolate(ngettext("Waiting for %(count)s more player to join.", "Waiting for %(count)s more players to join.", missing), { count: missing }, true);
    }
    if (match.status === "aborted") return _("This match was aborted.");
    if (match.status === "finished") {
      const winners = (match.result && match.result.winners) || [];
      if (!winners.length) return _("Match over: nobody wins.");
      const names = winners.map(nameOf).join(_(" and "));
      return winners.length > 1 ? _("Match over: %(names)s share the win.", { names }) : _("Match over: %(names)s won.", { names });
    }
    if (awaitingMe(match)) {
      if (phase.kind === "reveal") return _("Your move: revealing your committed card…");
      if (phase.kind === "turn") return _("Your turn.");
      return isCardGame() ? _("Your move: pick a card.") : _("Your move.");
    }
    const waitingFor = (phase.to_act || []).filter((s) => !(phase.submitted || []).includes(s));
    const mine = seated() && (phase.to_act || []).includes(match.you);
    const prefix = mine ? (phase.kind === "reveal" ? _("Revealed.") + " " : _("Submitted.") + " ") : "";
    if (!match.disclose_submitted && mine) return prefix + _("Waiting for the others…");
    if (waitingFor.length) return prefix + _("Waiting for %(names)s…", { names: waitingFor.map(nameOf).join(", ") });
    return prefix + _("Resolving…");
  }

  function tickDeadline() {
    const box = $("deadline");
    const deadline = match && match.status === "active" && match.phase && match.phase.deadline;
    if (!deadline) { box.hidden = true; return; }
    box.hidden = false;
    put(box, _("Deadline"), " ", el("time", { datetime: deadline }, F.localTime(deadline)),
      ` — ${F.countdown(deadline)}`);
  }

  function renderJoin() {
    const panel = $("join-panel");
    const actions = $("join-actions");
    put(actions);
    if (match.status !== "open") { panel.hidden = true; return; }
    panel.hidden = false;
    const mySeat = seated() ? match.seats[match.you] : null;
    if (!mySeat) {
      if (match.seats.some((s) => !s.player && !s.bot)) {
        actions.append(el("button", { type: "button", class: "primary", onclick: () => act("join") }, _("Take a seat")));
      } else actions.append(el("span", { class: "muted" }, _("Every seat is taken.")));
    } else if (!mySeat.accepted) {
      actions.append(
        el("span", {}, _("%(player)s invites you.", { player: match.created_by }) + " "),
        el("button", { type: "button", class: "primary", onclick: () => act("join") }, _("Accept")),
        el("button", { type: "button", onclick: () => act("decline") }, _("Decline")));
    } else {
      actions.append(el("span", { class: "muted" }, _("You are seated; the match starts when every seat is filled.")));
    }
  }

  function renderSeats() {
    const phase = match.phase || {};
    const timed = Array.isArray(match.clocks);
    $("clock-col").hidden = !timed;
    const rows = match.seats.map((seat) => {
      let state = "—";
      if (match.status === "open") state = seat.accepted ? _("ready") : (seat.player ? _("invited") : (seat.bot ? _("ready") : _("open")));
      else if ((phase.to_act || []).includes(seat.index)) {
        const done = (phase.submitted || []).includes(seat.index);
        if (phase.kind === "reveal") state = done ? _("revealed ✓") : _("to reveal");
        else if (done) state = match.protocol === "commit-reveal" && phase.kind === "simultaneous" ? _("committed ✓") : _("submitted ✓");
        else state = match.disclose_submitted || seat.index === match.you ? _("thinking…") : "?";
      }
      const flags = [];
      if (seat.forfeited) flags.push(_("forfeited"));
      else if (seat.controlled_by === "bot" && seat.player) flags.push(_("a bot plays for them"));
      const winner = match.result && (match.result.winners || []).includes(seat.index);
      return el("tr", { class: seat.index === match.you ? "me" : "", dataset: { seat: seat.index } },
        el("td", {}, String(seat.index + 1)),
        el("td", {}, nameOf(seat.index), winner ? el("span", { class: "badge win" }, _("winner")) : null,
          flags.length ? el("small", { class: "muted" }, ` (${flags.join(", ")})`) : null),
        el("td", { class: "num" }, String(seat.score)),
        timed ? el("td", { class: "seat-clock", dataset: { seat: seat.index } }) : null,
        el("td", { class: `step-state${state.includes("✓") ? " done" : ""}` }, state));
    });
    put($("seat-rows"), rows);
    weekendCache = {};
    tickClocks();
    tickerSet();
  }

  // ---- clocks: one timer ticks them and the deadline while anything counts down ----------

  let ticker = null;
  let weekendCache = {};

  function tickerSet() {
    const active = match && match.status === "active";
    const needed = active && ((match.phase && match.phase.deadline) || match.paused_until ||
      (match.clocks || []).some((c) => c.running_since || c.vacation_until));
    if (needed && ticker === null) ticker = setInterval(tick, 1000);
    if (!needed && ticker !== null) { clearInterval(ticker); ticker = null; }
  }

  function tick() {
    tickDeadline();
    tickClocks();
  }

  function tickClocks() {
    const now = Date.now();
    const C = F.clock;
    const paused = match.paused_until && Date.parse(match.paused_until) > now ? match.paused_until : null;
    $("paused").hidden = !paused;
    if (paused) put($("paused"), C.withTime(C.TEXT.paused, paused));
    for (const cell of document.querySelectorAll("#seat-rows .seat-clock")) {
      const clock = (match.clocks || [])[Number(cell.dataset.seat)];
      if (!clock) { put(cell); continue; }
      const state = C.seatState(match, clock, now, weekendCache);
      cell.classList.toggle("running", state.running);
      put(cell,
        el("span", { class: "clock-time", title: state.label }, state.text),
        state.extra ? [" ", el("span", { class: "clock-periods" }, state.extra)] : null,
        state.running ? el("span", { class: "visually-hidden" }, " " + C.TEXT.running) : null,
        state.notes.map(([text, at]) => el("small", { class: "clock-note" }, at ? C.withTime(text, at) : text)));
    }
  }

  function renderTable(animate) {
    const prize = $("prize");
    const table = $("table");
    const generic = $("generic-view");
    put(prize);
    put(table);
    put(generic);
    if (!match.view) return;
    if (!isCardGame()) {
      generic.append(genericView(match.view));
      const last = resolvedEvents().filter((e) => e.data).pop();
      if (last) {
        table.append(el("div", { class: "last-step" }, el("h3", {}, _("Step %(step)s resolved", last)), summary(last.data)));
        if (animate) table.querySelector(".last-step").classList.add("pulse");
      }
      return;
    }
    const v = match.view;
    // The pot and what is still to come.
    if (match.status === "active") {
      const potLabel = miceAndVultures() && v.mode ?
        (v.mode === "vulture" ? _("Pot — vulture: the lowest unique bid takes it") : _("Pot — mice: the highest unique bid takes it")) :
        _("Pot — the highest bid takes it");
      prize.append(el("div", { class: "pot", "aria-label": _("Pot") },
        el("h3", {}, potLabel),
        el("div", { class: "cards" }, (v.pot || []).map((p) => cardFace(p, "prize", _("prize %(value)s", { value: p }))))));
    }
    // Per seat: this step's card (face down until the step resolves) and the last revealed bid.
    const phase = match.phase || {};
    const last = lastResolution();
    const active = match.status === "active";
    const nowCells = [];
    const lastCells = [];
    for (const seat of match.seats) {
      const i = seat.index;
      let now = null;
      if (active && (phase.to_act || []).includes(i)) {
        const done = (phase.submitted || []).includes(i);
        if (i === match.you && done) {
          const mine = ownMove();
          now = mine && mine.card !== undefined ?
            el("span", { class: "own" }, cardFace(mine.card, "bid", _("your card %(card)s, face down to the others", mine))) :
            cardBack(_("your card, face down"));
        } else if (done) now = cardBack(_("%(name)s: card placed face down", { name: seatName(seat) }));
        else now = el("span", { class: "card empty", role: "img", "aria-label": _("%(name)s: no card yet", { name: seatName(seat) }) });
      }
      nowCells.push(el("td", { dataset: { seat: i, role: "now" } }, now));
      const bid = last && last.bids ? last.bids[i] : undefined;
      lastCells.push(el("td", { class: last && last.winner === i ? "took" : "", dataset: { seat: i, role: "revealed" } },
        bid === undefined ? null :
          flipCard(bid, last.pile ? _("%(name)s last played %(bid)s", { name: seatName(seat), bid }) : _("%(name)s bid %(bid)s", { name: seatName(seat), bid }), !animate)));
    }
    const slots = el("table", { class: "slots" },
      el("thead", {}, el("tr", {}, el("td", {}), match.seats.map((s) =>
        el("th", { scope: "col", class: s.index === match.you ? "me" : "" }, nameOf(s.index))))),
      el("tbody", {},
        active ? el("tr", {}, el("th", { scope: "row" }, _("Step %(step)s", match)), nowCells) : null,
        last ? el("tr", { class: "revealed-row" }, el("th", { scope: "row" },
          last.pile ? _("Last played") : _("Revealed (step %(step)s)", last)), lastCells) : null));
    table.append(slots);
    if (last && !last.pile) {
      table.append(el("p", { class: "outcome" }, _("Step %(step)s: %(summary)s", { step: last.step, summary: outcomeText(last) })));
    }
    if (animate) flipAll(slots);
    // What is still to come, after the decision's pot and sealed row.
    if (v.remaining_prizes && match.status === "active") {
      const removed = v.removed_prizes ? " " + _("(%(count)s of these never come up)", { count: v.removed_prizes }) : "";
      table.append(el("p", { class: "muted remaining" },
        _("Still to come: %(cards)s", { cards: v.remaining_prizes.length ? v.remaining_prizes.join(", ") : _("nothing") }) + removed));
    }
    if (v.won || v.taken) {
      const piles = v.won || v.taken;
      table.append(el("div", { class: "won" }, el("h3", {}, _("Cards taken")),
        el("ul", {}, piles.map((cards, i) => el("li", {}, `${nameOf(i)}: `,
          cards.length ? el("span", { class: "cards small" }, cards.map((c) => cardFace(c, "prize", _("prize %(value)s", { value: c })))) : _("none"))))));
    }
    if (v.discarded && v.discarded.length) table.append(el("p", { class: "muted" }, _("Discarded: %(cards)s", { cards: v.discarded.join(", ") })));
    if (v.removed && v.removed.length) table.append(el("p", { class: "muted" }, _("Removed (nobody scored): %(cards)s", { cards: v.removed.join(", ") })));
  }

  /** The requester's move recorded in this step: from the API (sealed) or this browser's store. */
  function ownMove() {
    if (match.phase && match.phase.your_move) return match.phase.your_move;
    const saved = stored(match.step);
    return saved ? saved.move : null;
  }

  /** The key of the moves the hand's cards play ("card" at the card table; in another game the
      one key every legal move has when all its values are cards of the hand), or null. */
  function handKey(legal) {
    const hand = view().hand;
    if (isCardGame()) return "card";
    if (!Array.isArray(hand) || !legal.length) return null;
    const keys = new Set(legal.map((m) => Object.keys(m).join("|")));
    if (keys.size !== 1) return null;
    const [key] = keys;
    return !key.includes("|") && legal.every((m) => hand.includes(m[key])) ? key : null;
  }

  /** Where the focus sits in the hand before it is drawn again: the index of its card (the
      hand itself holds it while no card can be played: then the card it last stood on). */
  let handFocusAt = 0;
  function handFocus() {
    const hand = $("hand");
    const active = document.activeElement;
    if (!active || !hand.contains(active)) return null;
    if (active !== hand) handFocusAt = Math.max(0, [...hand.querySelectorAll("button")].indexOf(active));
    return handFocusAt;
  }

  /** A keyboard player keeps the focus in the hand across redraws: on the same place's card if
      it can be played, else the nearest playable one, else the hand itself. */
  function restoreHandFocus(index) {
    if (index === null) return;
    const hand = $("hand");
    const cards = [...hand.querySelectorAll("button")];
    const playable = cards.filter((c) => !c.disabled);
    const near = playable.sort((a, b) => Math.abs(cards.indexOf(a) - index) - Math.abs(cards.indexOf(b) - index))[0];
    (near || hand).focus({ preventScroll: true });
  }

  function renderHand() {
    const panel = $("hand-panel");
    const hand = $("hand");
    const moves = $("moves");
    const note = $("hand-note");
    const focusAt = handFocus();
    put(hand);
    put(moves);
    note.textContent = "";
    const v = view();
    const legal = match.legal_moves || [];
    const key = handKey(legal);
    // Moves drawn elsewhere: the hand's cards, and the tiles of a grid board.
    const onGrid = (m) => Array.isArray(v.grid) && Object.keys(m).length === 1 && "flip" in m;
    const listed = legal.filter((m) => !(key && key in m && Object.keys(m).length === 1) && !onGrid(m));
    $("hand-title").textContent = isCardGame() || key ? _("Your hand") : _("Your moves");
    if (!seated() || match.status !== "active" || (!v.hand && !legal.length && isCardGame())) {
      panel.hidden = !(seated() && v.hand && v.hand.length && match.status === "active");
    } else panel.hidden = false;
    const mine = ownMove();
    if (v.hand) {
      const legalCards = new Set(key ? legal.filter((m) => key in m).map((m) => m[key]) : []);
      const verb = isCardGame() ? _("Play card") : F.words(key || "play");
      for (const card of v.hand) {
        const playable = legalCards.has(card) && !pending;
        const picked = mine && mine[key || "card"] === card;
        const selected = armed && armed[key || "card"] === card;
        hand.append(el("button", {
          type: "button", class: `card face bid playable${picked ? " picked" : ""}${selected ? " armed" : ""}`,
          disabled: !playable, "aria-pressed": picked ? "true" : "false",
          "aria-label": playable ? `${verb} ${card}` : (picked ? _("Card %(card)s, your choice", { card }) : _("Card %(card)s", { card })),
          dataset: { card },
          onclick: () => play({ [key || "card"]: card }),
        }, el("span", { class: "value" }, String(card))));
      }
      if (v.removed_bids && v.removed_bids.length) {
        note.textContent = _("Removed from your hand this deal: %(cards)s.", { cards: v.removed_bids.join(", ") }) + " ";
      }
    }
    if (armed && (match.status !== "active" || !awaitingMe(match))) armed = null;
    const bar = confirmBar();
    if (bar) moves.append(bar);
    moves.append(...moveControls(listed));
    restoreHandFocus(focusAt);
    if (match.status !== "active" || !seated()) return;
    const phase = match.phase || {};
    if (phase.kind === "reveal" && (phase.to_act || []).includes(match.you)) {
      const saved = stored(match.step);
      note.textContent += saved ? _("Revealing %(move)s (committed from this browser).", { move: F.shownMove(saved.move) }) :
        _("Your committed move is not stored in this browser: reveal it from the browser you committed on.");
    } else if (mine && match.protocol === "commit-reveal" && phase.kind === "simultaneous") {
      note.textContent += _("You committed to %(move)s; only its hash went to the server. This browser reveals it when everyone has committed.", { move: F.shownMove(mine) });
    } else if (mine) {
      note.textContent += _("You played %(move)s. It stays face down until every card is in.", { move: F.shownMove(mine) });
    } else if (awaitingMe(match)) {
      if (isCardGame()) note.textContent += _("Pick a card: click or tap it, or Tab to it and press Enter.");
      else if (legal.some(onGrid)) note.textContent += _("Flip a face-down tile of the grid.");
      else note.textContent += key ? _("Pick a card of your hand.") : _("Choose a move.");
    } else if ((phase.to_act || []).includes(match.you) && (phase.submitted || []).includes(match.you)) {
      note.textContent += _("Submitted.");
    }
  }

  /** The moves as controls: moves of one key with a plain value in one group that names the
      key once ("Take: AS 2S …"), anything else one button (or chooser) each. */
  function moveControls(legal) {
    const simple = (m) => Object.keys(m).length === 1 && (typeof Object.values(m)[0] !== "object" || Object.values(m)[0] === null);
    const keys = new Set(legal.map((m) => Object.keys(m)[0]));
    if (legal.length > 1 && keys.size === 1 && legal.every(simple)) {
      const [key] = keys;
      const name = F.words(key);
      return [el("div", { class: "move-group", role: "group", "aria-label": name },
        el("span", { class: "move-key", "aria-hidden": "true" }, `${name[0].toUpperCase()}${name.slice(1)}:`),
        legal.map((move) => {
          const selected = armed && F.canonical(armed) === F.canonical(move);
          return el("button", { type: "button", class: `move short${selected ? " armed" : ""}`, disabled: pending,
            "aria-label": `${name} ${F.valueLabel(move[key])}`, onclick: () => play(move) }, F.valueLabel(move[key]));
        }))];
    }
    return legal.map(moveControl);
  }

  /** A button for a move, or a multi-select for a choose-k template. */
  function moveControl(move) {
    const entries = Object.entries(move);
    const template = entries.find(([, v]) => v && typeof v === "object" && !Array.isArray(v) && "choose" in v && Array.isArray(v.from));
    if (!template) {
      const selected = armed && F.canonical(armed) === F.canonical(move);
      return el("button", { type: "button", class: `move${selected ? " armed" : ""}`, disabled: pending,
        "aria-label": _("Play %(move)s", { move: F.moveLabel(move) }), onclick: () => play(move) }, F.moveLabel(move));
    }
    const [key, { choose, from }] = template;
    const submit = el("button", { type: "button", class: "primary", disabled: true },
      _("%(name)s: submit %(count)s chosen", { name: F.words(key), count: choose }));
    const boxes = from.map((option, i) => {
      const id = `choose-${key}-${i}`;
      const value = JSON.stringify(option);
      const box = el("input", { type: "checkbox", id, checked: chosen.has(`${key}|${value}`) });
      box.addEventListener("change", () => {
        if (box.checked) chosen.add(`${key}|${value}`); else chosen.delete(`${key}|${value}`);
        sync();
      });
      return el("label", { class: "choice", for: id }, box, " ", F.valueLabel(option));
    });
    const count = el("span", { class: "muted", "aria-live": "polite" });
    function picked() {
      return from.filter((o) => chosen.has(`${key}|${JSON.stringify(o)}`));
    }
    function sync() {
      const n = picked().length;
      count.textContent = _("%(n)s of %(count)s chosen", { n, count: choose });
      submit.disabled = n !== choose || pending;
    }
    submit.addEventListener("click", () => {
      const rest = Object.fromEntries(entries.filter(([k]) => k !== key));
      play({ ...rest, [key]: picked() });
    });
    sync();
    return el("fieldset", { class: "choose" },
      el("legend", {}, _("Choose %(count)s: %(name)s", { count: choose, name: F.words(key) })),
      el("div", { class: "choices" }, boxes), el("div", { class: "row" }, submit, count));
  }

  // ---- generic views (games without a dedicated renderer) -------------------------------------

  function genericValue(value, key) {
    if (value === null || value === undefined) return el("span", { class: "muted" }, _("none"));
    if (Array.isArray(value)) {
      if (!value.length) return el("span", { class: "muted" }, _("none"));
      const perSeat = match && value.length === match.seats.length && key && /^(scores|taken|won|piles|hands?|lives|tricks|seats|players)$/.test(key);
      if (value.every((x) => x === null || typeof x !== "object")) {
        if (perSeat) return el("ul", { class: "per-seat" }, value.map((x, i) => el("li", {}, `${nameOf(i)}: ${F.valueLabel(x)}`)));
        return el("span", { class: "chips" }, value.map((x) => el("span", { class: "chip" }, F.valueLabel(x))));
      }
      return el("ol", { class: "nested" }, value.map((x, i) =>
        el("li", {}, perSeat ? `${nameOf(i)}: ` : null, genericValue(x))));
    }
    if (typeof value === "object") {
      return el("dl", { class: "fields" }, Object.entries(value).flatMap(([k, v]) =>
        [el("dt", {}, F.words(k)), el("dd", {}, genericValue(v, k))]));
    }
    return el("span", {}, F.valueLabel(value));
  }

  /** One line for a resolution of a game without a dedicated renderer. */
  function summary(data) {
    const skip = new Set(["step", "scores", "over"]);
    const parts = Object.entries(data).filter(([k, v]) => !skip.has(k) && v !== null && !(Array.isArray(v) && !v.length))
      .map(([k, v]) => {
        if (typeof v === "number" && /^(seat|next|winner|caller|target|current)$/.test(k) && match.seats[v]) return `${F.words(k)} ${nameOf(v)}`;
        return `${F.words(k)} ${F.valueLabel(v)}`;
      });
    return el("span", { class: "summary" }, parts.join(" · "));
  }

  /** A board of positions (Memory's grid): tiles, each a button when flipping it is legal. */
  function gridBoard(grid) {
    const legal = new Set((match.legal_moves || []).filter((m) => "flip" in m).map((m) => m.flip));
    return el("div", { class: "grid-board", role: "group", "aria-label": _("Grid") }, grid.map((cell, i) => {
      const text = cell === null ? "" : cell === "taken" ? "" : String(cell);
      const state = cell === null ? _("face down") : cell === "taken" ? _("taken") : _("showing %(card)s", { card: cell });
      const cls = `tile card ${cell === null ? "back" : cell === "taken" ? "empty" : "face"}`;
      if (legal.has(i)) {
        return el("button", { type: "button", class: `${cls} playable`, disabled: pending,
          "aria-label": _("Flip position %(position)s (%(state)s)", { position: i, state }), onclick: () => play({ flip: i }) }, text);
      }
      return el("span", { class: cls, role: "img", "aria-label": _("Position %(position)s: %(state)s", { position: i, state }) }, text);
    }));
  }

  function genericView(v) {
    const sections = [];
    if (Array.isArray(v.grid)) sections.push(el("section", { class: "view-field wide", dataset: { field: "grid" } }, el("h3", {}, F.words("grid")), gridBoard(v.grid)));
    for (const [key, value] of Object.entries(v)) {
      if (key === "grid" && Array.isArray(value)) continue;
      const option = [key, key.replace(/_mode$/, "")].find((name) => name in optionProps);
      const said = option && F.optionForm.optionWords(optionProps, option, value);
      sections.push(el("section", { class: "view-field", dataset: { field: key } },
        el("h3", { class: said ? "said" : null }, said ? said.title : F.words(key)), said ? el("span", {}, said.description) : genericValue(value, key)));
    }
    return el("div", { class: "view-fields" }, sections);
  }

  // ---- acting ----------------------------------------------------------------------------

  /** With "confirm each move" on, the first tap arms a move and a second tap (or Confirm)
      plays it; otherwise one tap plays. */
  function play(move) {
    if (pending || !match || !seated()) return;
    if (F.prefs && F.prefs.confirmMoves() && F.canonical(move) !== F.canonical(armed)) {
      armed = move;
      renderHand();
      return;
    }
    armed = null;
    submitMove(move);
  }

  function confirmBar() {
    if (!armed) return null;
    return el("div", { class: "row confirm-bar" },
      el("button", { type: "button", class: "primary", id: "confirm-move", disabled: pending,
        onclick: () => play(armed) }, _("Confirm: play %(move)s", { move: F.shownMove(armed) })),
      el("button", { type: "button", onclick: () => { armed = null; renderHand(); } }, _("Cancel")));
  }

  async function submitMove(move) {
    if (pending || !match || !seated()) return;
    pending = true;
    renderHand();
    const step = match.step;
    let body = { step, move };
    try {
      if (match.protocol === "commit-reveal" && match.phase.kind === "simultaneous") {
        // An earlier attempt whose answer was lost is re-posted as it was (the server answers
        // 200 with its receipt); otherwise a fresh salt seals the new choice.
        let saved = stored(step);
        if (!saved) {
          const salt = F.randomHex(16);
          const commitment = await F.commitment(matchId, step, match.you, move, salt);
          saved = { move, salt, commitment };
          localStorage.setItem(STORE_PREFIX + step, JSON.stringify(saved));
        }
        body = { step, commitment: saved.commitment };
      }
      const answer = await api("POST", `/matches/${matchId}/moves`, body);
      if (answer.ok) {
        // The page shows the played card at once: the confirmation is for screen readers only,
        // a box over the table would cover the history and the replay.
        moveError("");
        F.announce(body.commitment ? _("Committed (step %(step)s).", { step }) : _("Played %(move)s.", { move: F.shownMove(move) }));
      } else {
        if (body.commitment && answer.data && answer.data.code !== "already_submitted") {
          localStorage.removeItem(STORE_PREFIX + step);
        }
        moveError(problemText(answer));
      }
    } catch (err) {
      moveError(_("Network error: %(message)s", err));
    } finally {
      pending = false;
      etag = null; // our own submission changes only our ETag; read it again now
      soon();
    }
  }

  async function autoReveal() {
    const phase = match.phase || {};
    if (match.protocol !== "commit-reveal" || phase.kind !== "reveal" || !awaitingMe(match)) return;
    if (revealingStep === match.step) return;
    const saved = stored(match.step);
    if (!saved) return;
    revealingStep = match.step;
    const answer = await api("POST", `/matches/${matchId}/reveals`,
      { step: match.step, move: saved.move, salt: saved.salt });
    if (answer.ok) {
      moveError("");
      F.announce(_("Revealed %(move)s.", { move: F.shownMove(saved.move) }));
      // a secret choice is not kept a moment longer than the reveal needs it
      if (F.shownMove(saved.move) !== F.moveLabel(saved.move)) {
        localStorage.removeItem(STORE_PREFIX + match.step);
      }
    }
    else {
      moveError(problemText(answer));
      if (answer.data && answer.data.code === "commitment_mismatch") revealingStep = null;
    }
    etag = null;
    soon();
  }

  async function act(action) {
    const body = action === "join" ? { client_seed: F.clientSeed() } : undefined;
    const answer = await api("POST", `/matches/${matchId}/${action}`, body);
    if (!answer.ok) toast(problemText(answer));
    etag = null;
    soon();
  }

  // ---- history, result, replay -----------------------------------------------------------

  function renderHistory() {
    const box = $("history");
    const v = view();
    if (isCardGame() && v.history && v.history.length) {
      const multiDeal = v.deals > 1;
      // focusable, so a keyboard can scroll it sideways on a phone
      put(box, el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": _("Steps played") }, el("table", { class: "history" },
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, _("Step")),
          multiDeal ? el("th", { scope: "col" }, _("Deal")) : null,
          el("th", { scope: "col" }, _("Pot")),
          match.seats.map((s) => el("th", { scope: "col" }, seatName(s))),
          el("th", { scope: "col" }, _("Outcome")))),
        el("tbody", {}, [...v.history].reverse().map((h) => el("tr", {},
          el("td", { class: "num" }, String(h.step)),
          multiDeal ? el("td", { class: "num" }, String(h.deal)) : null,
          el("td", {}, h.pot.join(", ")),
          h.bids.map((b, i) => el("td", { class: `num${h.winner === i ? " took" : ""}` }, String(b))),
          el("td", {}, outcomeText(h))))))));
      return;
    }
    const resolved = resolvedEvents();
    if (!resolved.length) {
      put(box, el("p", { class: "muted" }, v.history_mode === "table_only" ?
        _("This match shows only the table: earlier turns are not kept for players.") : _("Nothing has happened yet.")));
      return;
    }
    put(box, el("ol", { class: "event-list", reversed: true },
      [...resolved].reverse().map((e) => el("li", {}, _("Step %(step)s:", e) + " ",
        e.data ? (isCardGame() ? `${(e.data.bids || []).map((b, i) => `${seatName(match.seats[i])} ${b}`).join(", ")} — ${outcomeText(e.data)}` : summary(e.data)) :
          el("span", { class: "muted" }, _("hidden from you"))))));
  }

  function renderResult() {
    const box = $("result");
    if (!match.result) { box.hidden = true; return; }
    const r = match.result;
    box.hidden = false;
    put(box,
      el("h3", {}, _("Result")),
      el("p", {}, r.winners.length ? interpolate(ngettext("Winner: %(names)s", "Winners: %(names)s", r.winners.length), { names: r.winners.map(nameOf).join(", ") }, true) : _("No winner.")),
      el("ol", { class: "ranking" }, (r.ranking || []).map((group) =>
        el("li", {}, group.map((s) => `${nameOf(s)} (${r.scores[s]})`).join(", ")))),
      r.reason !== "completed" ? el("p", { class: "muted" }, _("Ended by %(reason)s.", { reason: F.words(r.reason) })) : null);
  }

  function renderReplay() {
    const panel = $("replay-panel");
    const steps = resolvedEvents().filter((e) => e.data);
    if (match.status !== "finished" || !steps.length) { panel.hidden = true; return; }
    panel.hidden = false;
    if (replayIndex === null) replayIndex = 0;
    showReplay(false);
  }

  function showReplay(animate) {
    const steps = resolvedEvents().filter((e) => e.data);
    replayIndex = Math.max(0, Math.min(replayIndex, steps.length - 1));
    const event = steps[replayIndex];
    const d = event.data;
    $("replay-pos").textContent = _("Step %(step)s (%(n)s of %(count)s)", { step: event.step, n: replayIndex + 1, count: steps.length });
    $("replay-first").disabled = $("replay-prev").disabled = replayIndex === 0;
    $("replay-next").disabled = $("replay-last").disabled = replayIndex === steps.length - 1;
    const box = $("replay-view");
    if (isCardGame() && d.bids) {
      const slots = el("table", { class: "slots" },
        el("thead", {}, el("tr", {}, match.seats.map((seat) => el("th", { scope: "col" }, nameOf(seat.index))))),
        el("tbody", {}, el("tr", {}, d.bids.map((b, i) =>
          el("td", { class: d.winner === i ? "took" : "", dataset: { seat: i, role: "revealed" } },
            flipCard(b, _("%(name)s bid %(bid)s", { name: seatName(match.seats[i]), bid: b }), !animate))))));
      put(box,
        el("div", { class: "pot" }, el("h3", {}, d.mode ? _("Pot (%(mode)s)", { mode: F.words(d.mode) }) : _("Pot")),
          el("div", { class: "cards" }, (d.pot || []).map((p) => cardFace(p, "prize", _("prize %(value)s", { value: p }))))),
        slots,
        el("p", { class: "outcome" }, outcomeText(d)),
        d.scores ? el("p", { class: "muted" }, _("Scores after this step:"), " ",
          d.scores.map((s, i) => `${seatName(match.seats[i])} ${s}`).join(", ")) : null);
      if (animate) flipAll(slots);
    } else {
      put(box, genericValue(d));
    }
  }

  function step(delta, absolute) {
    const steps = resolvedEvents().filter((e) => e.data);
    replayIndex = absolute !== undefined ? absolute : replayIndex + delta;
    if (replayIndex < 0) replayIndex = steps.length - 1;
    showReplay(true);
  }

  function renderFooter() {
    const resign = $("resign");
    const mySeat = seated() ? match.seats[match.you] : null;
    resign.hidden = !mySeat || mySeat.forfeited || !(match.status === "active" || match.status === "open");
    resign.textContent = match.status === "open" ? _("Leave this match") : _("Resign");
    const over = match.status === "finished" || match.status === "aborted";
    $("verify-panel").hidden = !over;
    if (over) $("audit-link").href = `/api/v1/matches/${matchId}/audit`;
    $("audit-link").setAttribute("download", `facedown-${matchId}.json`);
    const f = match.fairness || {};
    $("fairness").textContent = _("Deal committed before the start: seed SHA-256 %(hash)s", { hash: f.seed_sha256 || "?" }) +
      (f.seed ? " · " + _("seed published: %(seed)s", f) : "");
  }

  // ---- start -----------------------------------------------------------------------------

  // A proposal's answer changes the match's version: read it again now.
  const proposals = F.proposals.setup(matchId, () => { etag = null; soon(); });
  const conditional = F.conditional.setup(matchId);
  // So does an offer of a seat, or its takeover.
  const substitutes = F.substitutes.setup(matchId, root.dataset.username, () => { etag = null; soon(); });

  $("replay-first").addEventListener("click", () => step(0, 0));
  $("replay-prev").addEventListener("click", () => step(-1));
  $("replay-next").addEventListener("click", () => step(1));
  $("replay-last").addEventListener("click", () => step(0, -1));
  $("resign").addEventListener("click", () => {
    const text = match.status === "open" ? _("Leave this match?") : _("Resign? Your seat forfeits and is ranked last.");
    if (window.confirm(text)) act("resign");
  });
  document.addEventListener("visibilitychange", () => { if (!document.hidden) soon(); });
  document.addEventListener("facedown:prefs", () => { armed = null; if (match) renderHand(); });
  // A move typed or chosen in the screen-reader mode: the typing was its confirmation.
  document.addEventListener("facedown:move", (event) => { armed = null; submitMove(event.detail); });
  poll().then(() => {
    if (!match || match.status === "finished" || match.status === "aborted") return;
    goLive();
    F.followMe();
  });
})();
