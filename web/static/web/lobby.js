/* The lobby: my matches (with a "your move" marker), open matches to join, and a form that
   creates a match from GET /api/v1/games (options generated from each game's JSON Schema). */
"use strict";

(() => {
  const { _, said, api, problemText, el, toast, seatName, awaitingMe, localTime, clientSeed } = Facedown;
  const $ = (id) => document.getElementById(id);
  let games = [];
  const gameNames = {};

  // ---- the create form -------------------------------------------------------------------

  function currentGame() {
    return games.find((g) => g.slug === $("game").value);
  }

  const { choicesOf, optionControl } = Facedown.optionForm;

  function renderOptions() {
    const game = currentGame();
    const box = $("options");
    box.replaceChildren();
    if (!game) return;
    $("game-info").textContent = _("%(min)s–%(max)s players", game.players);
    const props = (game.options && game.options.properties) || {};
    for (const [name, prop] of Object.entries(props)) {
      const field = optionControl(name, prop);
      if (field) box.append(field);
    }
    $("options-fieldset").hidden = !box.children.length;
    resetSeats();
  }

  const readOptions = () => Facedown.optionForm.readOptions($("options"));

  // A bot as the lobby offers it: its name, how it plays, and how strong the arena found it.
  function botStrength(b) {
    const st = b.strength;
    if (!st) return _("not measured yet");
    const margin = (st.margin >= 0 ? "+" : "") + st.margin.toFixed(1);
    return _("%(margin)s points, wins %(percent)s vs %(against)s (%(players)s players)",
      { margin, percent: `${Math.round(st.win_rate * 100)}%`, against: st.against, players: st.players });
  }

  function botAbout(b) {
    return _("%(about)s Strength: %(strength)s.", { about: said(b.description) || b.name, strength: botStrength(b) });
  }

  function seatRow(kind, detail) {
    const game = currentGame();
    const bots = (game && game.bots) || [];
    const index = $("seats").children.length + 1;
    const kindSelect = el("select", { "aria-label": _("Seat %(index)s: who sits here", { index }), class: "seat-kind" },
      el("option", { value: "me" }, _("me")),
      el("option", { value: "user" }, _("invite a user")),
      el("option", { value: "open" }, _("open to anyone")),
      bots.length ? el("option", { value: "bot" }, _("bot")) : null);
    kindSelect.value = kind;
    const user = el("input", { type: "text", class: "seat-user", placeholder: _("username"),
      "aria-label": _("Seat %(index)s: username to invite", { index }), autocomplete: "off" });
    const bot = el("select", { class: "seat-bot", "aria-label": _("Seat %(index)s: bot strategy", { index }) },
      bots.map((b) => el("option", { value: b.name }, b.name)));
    if (kind === "user" && detail) user.value = detail;
    if (kind === "bot" && detail) bot.value = detail;
    const about = el("small", { class: "seat-bot-about help", id: `seat-${index}-bot-about`, "aria-live": "polite" });
    bot.setAttribute("aria-describedby", about.id);
    const sync = () => {
      user.hidden = kindSelect.value !== "user";
      bot.hidden = kindSelect.value !== "bot";
      const chosen = bots.find((b) => b.name === bot.value);
      about.hidden = bot.hidden || !chosen;
      about.textContent = chosen ? botAbout(chosen) : "";
    };
    kindSelect.addEventListener("change", sync);
    bot.addEventListener("change", sync);
    sync();
    return el("li", { class: "seat-row" }, el("span", { class: "seat-no" }, _("Seat %(index)s", { index })),
      kindSelect, user, bot, about);
  }

  function resetSeats() {
    const game = currentGame();
    const seats = $("seats");
    seats.replaceChildren();
    if (!game) return;
    seats.append(seatRow("me"));
    const other = game.bots && game.bots.length ? "bot" : "open";
    const preferred = game.bots && game.bots.find((b) => b.name === "greedy");
    for (let i = 1; i < game.players.min; i++) {
      seats.append(seatRow(other, preferred ? preferred.name : undefined));
    }
    syncSeatButtons();
  }

  function syncSeatButtons() {
    const game = currentGame();
    const n = $("seats").children.length;
    $("add-seat").disabled = !game || n >= game.players.max;
    $("remove-seat").disabled = !game || n <= game.players.min;
  }

  function readSeats() {
    return Array.from($("seats").children, (row) => {
      const kind = row.querySelector(".seat-kind").value;
      if (kind === "user") return { user: row.querySelector(".seat-user").value.trim() };
      if (kind === "bot") return { bot: row.querySelector(".seat-bot").value };
      return kind;
    });
  }

  const { timeControlShow, readTimeControl } = Facedown.clockForm;

  /** "When the highest bids tie: Penguin rule": an option and its value in the catalogue's words. */
  function optionText(slug, name, value) {
    const game = games.find((g) => g.slug === slug);
    const prop = (game && game.options && game.options.properties && game.options.properties[name]) || {};
    const types = [].concat(prop.type || []);
    const choice = (choicesOf(prop, types.includes("null") || prop.default === null) || [])
      .find((c) => JSON.stringify(c.value) === JSON.stringify(value));
    const shown = choice ? choice.title : value === null ? _("automatic") : Facedown.valueLabel(value);
    return _("%(title)s: %(description)s", { title: said(prop.title) || Facedown.words(name), description: shown });
  }

  // What the seek form (seeks.js) reuses of this form.
  Facedown.lobbyForm = {
    game: () => $("game").value,
    players: () => $("seats").children.length,
    options: readOptions,
    timeControl: readTimeControl,
    gameName: (slug) => gameNames[slug] || slug,
    optionText,
  };

  async function createMatch(event) {
    event.preventDefault();
    const errorBox = $("create-error");
    errorBox.hidden = true;
    const body = {
      game: $("game").value,
      options: readOptions(),
      seats: readSeats(),
      protocol: $("protocol").value,
      disclose_submitted: $("disclose").checked,
      rated: $("rated").checked,
    };
    const seriesLength = Number($("series-matches").value) || 1;
    const timeControl = readTimeControl();
    if (timeControl) body.time_control = timeControl;
    const series = seriesLength > 1;
    // "Add my own randomness": create not ready, then join with a client seed, so the deal
    // depends on entropy from this browser (or the player's own text), not the server's alone.
    // A series accepts its seats when created, so it takes no seed.
    const ownSeed = $("own-seed").checked && !series;
    if (ownSeed) body.ready = false;
    $("create-button").disabled = true;
    try {
      const answer = await api("POST", series ? "/series" : "/matches",
        series ? { ...body, matches: seriesLength } : body, { "Idempotency-Key": Facedown.randomHex() });
      if (answer.status === 201 && ownSeed) {
        const seed = $("own-seed-text").value.trim() || clientSeed();
        const joined = await api("POST", `/matches/${answer.data.id}/join`, { client_seed: seed });
        if (!joined.ok) toast(problemText(joined));
      }
      if (answer.status === 201) {
        window.location.href = series ? `/series/${answer.data.id}` : `/matches/${answer.data.id}`;
        return;
      }
      errorBox.textContent = problemText(answer);
      errorBox.hidden = false;
    } catch (err) {
      errorBox.textContent = _("Network error: %(message)s", err);
      errorBox.hidden = false;
    } finally {
      $("create-button").disabled = false;
    }
  }

  // ---- lists -----------------------------------------------------------------------------

  function players(match) {
    return match.seats.map((s) => (s.index === match.you ? _("%(name)s (you)", { name: seatName(s) }) : seatName(s))).join(_(" vs "));
  }

  function statusText(match) {
    const you = match.you;
    if (match.status === "open") {
      const waiting = match.seats.filter((s) => !s.accepted).length;
      return interpolate(ngettext("waiting for %(count)s player", "waiting for %(count)s players", waiting), { count: waiting }, true);
    }
    if (match.status === "finished" && match.result) {
      const winners = match.result.winners || [];
      if (you !== null && winners.includes(you)) return winners.length > 1 ? _("finished — shared win") : _("finished — you won");
      if (!winners.length) return _("finished — no winner");
      return _("finished — %(names)s won", { names: winners.map((w) => seatName(match.seats[w])).join(", ") });
    }
    if (match.status === "active") return _("step %(step)s", match);
    return { open: _("open"), active: _("active"), finished: _("finished"), aborted: _("aborted") }[match.status] || match.status;
  }

  async function respond(match, action) {
    const body = action === "join" ? { client_seed: clientSeed() } : undefined;
    const answer = await api("POST", `/matches/${match.id}/${action}`, body);
    if (answer.ok) {
      if (action === "join") window.location.href = `/matches/${match.id}`;
      else refresh();
    } else toast(problemText(answer));
  }

  function matchItem(match, { joinable = false } = {}) {
    const mine = match.you !== null && match.you !== undefined;
    const awaiting = awaitingMe(match);
    const reveal = awaiting && match.phase.kind === "reveal";
    const invited = mine && match.status === "open" && !match.seats[match.you].accepted;
    const deadline = match.phase && match.phase.deadline;
    const name = gameNames[match.game] || match.game;
    const link = el("a", { href: `/matches/${match.id}`, class: "match-link" }, name);
    return el("li", { class: `match-item${awaiting ? " awaiting" : ""}`, dataset: { matchId: match.id } },
      el("div", { class: "match-line" },
        link,
        awaiting ? el("span", { class: "badge your-move", "aria-label": _("Your move") },
          reveal ? _("Your move: reveal") : _("Your move")) : null,
        invited ? el("span", { class: "badge invited" }, _("Invitation")) : null,
        el("span", { class: "muted" }, statusText(match))),
      el("div", { class: "match-players" }, players(match)),
      deadline ? el("div", { class: "match-deadline" }, _("Deadline:"), " ",
        el("time", { datetime: deadline }, localTime(deadline))) : null,
      invited ? el("div", { class: "row" },
        el("button", { type: "button", class: "primary", onclick: () => respond(match, "join") }, _("Accept")),
        el("button", { type: "button", onclick: () => respond(match, "decline") }, _("Decline"))) : null,
      joinable ? el("div", { class: "row" },
        el("button", { type: "button", class: "primary", "aria-label": _("Join %(game)s match of %(player)s", { game: name, player: match.created_by }),
          onclick: () => respond(match, "join") }, _("Join"))) : null);
  }

  async function refresh() {
    const [mine, open] = await Promise.all([
      api("GET", "/matches?mine=true"),
      api("GET", "/matches?status=open"),
    ]);
    if (mine.ok) {
      const list = mine.data.results.filter((m) => m.status !== "aborted");
      list.sort((a, b) => Number(awaitingMe(b)) - Number(awaitingMe(a)));
      $("my-matches").replaceChildren(...list.map((m) => matchItem(m)));
      const waiting = list.filter(awaitingMe).length;
      $("mine-status").textContent = list.length
        ? (waiting ? interpolate(ngettext("%(count)s match waiting for your move.", "%(count)s matches waiting for your move.", waiting), { count: waiting }, true) : _("Nothing waiting for you."))
        : _("No matches yet: create one below.");
    } else {
      $("mine-status").textContent = problemText(mine);
    }
    if (open.ok) {
      const joinable = open.data.results.filter(
        (m) => (m.you === null || m.you === undefined) && m.seats.some((s) => !s.player && !s.bot));
      $("open-matches").replaceChildren(...joinable.map((m) => matchItem(m, { joinable: true })));
      $("open-empty").hidden = joinable.length > 0;
    }
  }

  async function start() {
    const answer = await api("GET", "/games");
    games = answer.ok ? answer.data : [];
    for (const game of games) gameNames[game.slug] = game.name;
    // the seeks' options are worded from the catalogue: draw them again now it is here
    document.dispatchEvent(new Event("facedown:games"));
    $("game").replaceChildren(...games.map((g) => el("option", { value: g.slug }, g.name)));
    $("game").addEventListener("change", renderOptions);
    $("add-seat").addEventListener("click", () => {
      $("seats").append(seatRow("open"));
      syncSeatButtons();
    });
    $("remove-seat").addEventListener("click", () => {
      $("seats").lastElementChild.remove();
      syncSeatButtons();
    });
    $("tc-kind").addEventListener("change", timeControlShow);
    $("create-form").addEventListener("submit", createMatch);
    $("own-seed").addEventListener("change", () => { $("own-seed-field").hidden = !$("own-seed").checked; });
    renderOptions();
    await refresh();
    // The user stream refreshes the list when something happens; the timer is a slow guard.
    Facedown.titleSet(document.title);
    Facedown.followMe(() => {
      refresh();
      document.dispatchEvent(new Event("facedown:me")); // the challenges' lists (challenges.js)
    });
    setInterval(() => { if (!document.hidden) refresh(); }, 4000);
  }

  start();
})();
