/* One tournament: its settings in words, join/withdraw, standings with tie-breaks, the
   crosstable, rounds with their tables (results only once a table is finished, as the API
   gives them), the event log, and the organiser's controls when ``you.is_organiser``. Follows
   the tournament stream for standings changes; polls with If-None-Match where streams fail. */
"use strict";

(() => {
  const { _, api, problemText, el, localTime, toast } = Facedown;
  const words = Facedown.tournamentWords;
  const $ = (id) => document.getElementById(id);
  const ID = $("tournament").dataset.tournamentId;
  const BASE = `/tournaments/${ID}`;
  const gameNames = {};
  let games = [];
  const gameName = (slug) => gameNames[slug] || slug;
  const etags = {};
  let detail = null;
  let disqualifiable = false;

  /** A GET that remembers the resource's ETag: null when unchanged (304). */
  async function read(path) {
    const headers = etags[path] ? { "If-None-Match": etags[path] } : {};
    const answer = await api("GET", path, undefined, headers);
    if (answer.status === 304) return null;
    if (answer.ok && answer.etag) etags[path] = answer.etag;
    return answer;
  }

  const points = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0$/, ""));
  const days = (seconds) => Math.round((seconds / 86400) * 100) / 100;

  function clockWords(tc) {
    if (!tc) return _("no time limit");
    if (tc.kind === "fischer") return _("Fischer: %(d)s d, +%(i)s d a move", { d: days(tc.initial_seconds), i: days(tc.increment_seconds) });
    if (tc.kind === "byoyomi") return _("byo-yomi: %(d)s d, then %(n)s × %(p)s d", { d: days(tc.main_seconds), n: tc.periods, p: days(tc.period_seconds) });
    if (tc.per_step_seconds >= 86400) return _("%(d)s d per step", { d: days(tc.per_step_seconds) });
    return _("%(s)s s per step", { s: tc.per_step_seconds });
  }

  /** "Cards per player: 5": each game option in the catalogue's words (GET /games). */
  function optionLines(t) {
    const game = games.find((g) => g.slug === t.game);
    const props = (game && game.options && game.options.properties) || {};
    return Object.entries(t.options || {}).filter(([name]) => name in props).map(([name, value]) =>
      _("%(title)s: %(description)s", Facedown.optionForm.optionWords(props, name, value)));
  }

  function settings(t) {
    const lines = [
      _("Organiser: %(name)s", { name: t.organiser }),
      _("Format: %(format)s", { format: words.format(t.format) }) + (t.rounds ? " · " + _("Rounds: %(n)s", { n: t.rounds }) : ""),
      _("Players per table: %(n)s", { n: t.seats }),
      _("Clock: %(clock)s", { clock: clockWords(t.time_control) }),
      t.rated ? _("Rated") : _("Unrated"),
      _("Stand-in bot: %(bot)s", { bot: t.stand_in_bot }),
      t.format === "arena" ? _("Players are paired again as soon as they are free")
        : t.round_interval_days
          ? _("Days between rounds: %(n)s", { n: t.round_interval_days })
          : _("The next round starts when the previous one ends"),
      _("Round time limit: %(d)s d", { d: days(t.round_limit_seconds) }),
      t.visibility === "public" ? _("Public") : _("Invited players only"),
      _("Starts: %(when)s", { when: localTime(t.starts_at) }),
    ];
    if (t.format === "arena") {
      lines.push(_("Length: %(n)s minutes; join and leave at any time during it", { n: t.arena_minutes }));
      if (t.ends_at) lines.push(_("Ends: %(when)s", { when: localTime(t.ends_at) }));
      lines.push(_("A win scores 2, a draw 1 (at two seats)"));
      if (t.streaks) lines.push(_("After two wins in a row, wins score double"));
      if (t.berserk) lines.push(_("Berserk: halve your clock before your first move for one more point on a win"));
    }
    if (t.format.endsWith("round_robin")) {
      lines.push(t.withdrawn_games === "forfeit"
        ? _("Games of a withdrawn player are lost by forfeit")
        : _("Games of a withdrawn player are played by the stand-in bot, unrated"));
    }
    if (t.format === "knockout") {
      lines.push(t.knockout_draws === "replay" ? _("A drawn table is replayed") : _("A drawn table goes to the higher rating"));
    }
    lines.push(...optionLines(t));
    if (t.min_rating !== null) lines.push(_("Minimum rating: %(n)s", { n: t.min_rating }));
    if (t.max_rating !== null) lines.push(_("Maximum rating: %(n)s", { n: t.max_rating }));
    if (t.min_rated_games) lines.push(_("Minimum rated games: %(n)s", { n: t.min_rated_games }));
    if (t.min_account_days) lines.push(_("Minimum account age (days): %(n)s", { n: t.min_account_days }));
    if (t.max_players) lines.push(_("Maximum players: %(n)s", { n: t.max_players }));
    if (t.registration_opens_at) lines.push(_("Registration opens: %(when)s", { when: localTime(t.registration_opens_at) }));
    if (t.registration_closes_at) lines.push(_("Registration closes: %(when)s", { when: localTime(t.registration_closes_at) }));
    if (t.finished_at) lines.push(_("Finished: %(when)s", { when: localTime(t.finished_at) }));
    return lines.map((line) => el("li", {}, line));
  }

  /** An arena's time left, counted down each second from its ``ends_at``. */
  function showTimeLeft() {
    const t = detail;
    const shown = Boolean(t && t.format === "arena" && t.status === "running" && t.ends_at);
    $("time-left").hidden = !shown;
    if (!shown) return;
    const left = Math.max(0, Math.floor((Date.parse(t.ends_at) - Date.now()) / 1000));
    const hours = Math.floor(left / 3600);
    const clock = `${hours ? hours + ":" : ""}${String(Math.floor((left % 3600) / 60)).padStart(hours ? 2 : 1, "0")}:${String(left % 60).padStart(2, "0")}`;
    $("time-left").textContent = left
      ? _("Time left: %(clock)s", { clock })
      : _("Time is up: the matches still running finish and count.");
  }

  function showDetail(t) {
    detail = t;
    // Who may be met is said before anyone joins (bot accounts only where the organiser allows).
    const botsMatter = t.format === "arena" || t.format === "swiss";
    $("bots-notice").hidden = !botsMatter;
    $("bots-notice").textContent = t.admit_bots
      ? _("Bot accounts may take part: you may be paired with programs (those matches are unrated). Refusing bots in your account settings keeps you apart from them.")
      : _("Only people take part: bot accounts may not enter.");
    showTimeLeft();
    $("tournament-title").textContent = t.name;
    document.title = `${t.name} · Facedown`;
    const round = t.current_round ? " · " + _("round %(n)s", { n: t.current_round }) : "";
    $("tournament-summary").textContent = words.summary(t, gameName) + round;
    $("tournament-settings").replaceChildren(...settings(t));
    const you = t.you;
    const open = t.status === "registering" || t.status === "running" || t.status === "paused";
    $("join-button").hidden = !you.may_join;
    $("decline-button").hidden = !you.invited;
    $("withdraw-button").hidden = !(you.registered && you.status === "active" && open);
    $("withdraw-button").textContent = t.format === "arena" ? _("Leave the arena") : _("Withdraw");
    const reason = !you.may_join && you.why_not && !(you.registered && you.why_not === "registered") ? words.whyNot(you.why_not, t) : "";
    $("why-not").textContent = you.registered && you.status === "active" ? _("You are registered.") : reason;
    $("why-not").hidden = !$("why-not").textContent;
    $("organiser-panel").hidden = !you.is_organiser;
    $("export-trf").hidden = t.seats !== 2;  // the report file knows two seats only
    if (you.is_organiser) {
      $("start-button").hidden = t.status !== "registering";
      $("pause-button").hidden = t.status !== "running";
      $("resume-button").hidden = t.status !== "paused";
      $("end-button").hidden = !open;
      $("add-player-form").hidden = !open;
      $("disqualify-form").hidden = !open || !disqualifiable;
    }
  }

  /** Before the first round is over there is nothing to rank: the players registered so far
      in one line, and no table, crosstable or downloads (they would be empty). */
  function showStandings(data) {
    const arena = Boolean(detail && detail.format === "arena");
    const ranked = (Boolean(data.round) || (arena && data.rows.some((row) => row.played))) && data.rows.length > 0;
    const names = data.rows.map((row) => row.player);
    // One message while the list is empty: nobody has joined yet.
    $("standings-round").textContent = ranked ? (arena ? _("Live: the standings move after every match") : _("After round %(n)s", { n: data.round })) : names.length
      ? _("The standings, the crosstable and the downloads appear once the first round is over.") : "";
    $("standings-round").hidden = !$("standings-round").textContent;
    $("entrants").textContent = names.length ? _("Registered: %(names)s", { names: names.join(", ") }) : _("Nobody has joined yet.");
    $("entrants").hidden = ranked;
    $("standings-wrap").hidden = !ranked;
    $("exports").hidden = !ranked;
    $("crosstable-panel").hidden = !ranked;
    $("standing-rows").replaceChildren(...data.rows.map((row) => el("tr", { class: row.status === "active" ? "" : "absent" },
      el("td", {}, row.rank),
      el("th", { scope: "row" }, el("a", { href: `/players/${encodeURIComponent(row.player)}` }, row.player),
        row.status === "active" ? "" : el("span", { class: "muted" }, " (" + words.entryStatus(row.status) + ")"),
        row.on_fire ? el("span", { class: "on-fire", title: _("Two wins in a row: the next win scores double") }, " 🔥") : ""),
      el("td", {}, points(row.score)), el("td", {}, points(row.buchholz)), el("td", {}, points(row.sonneborn_berger)),
      el("td", {}, points(row.direct)), el("td", {}, Math.round(row.rating)), el("td", {}, row.played), el("td", {}, row.byes))));
    for (const cell of $("standing-rows").querySelectorAll("th")) cell.classList.add("stack-wide");
    Facedown.stackLabels($("standings"));
    const active = data.rows.filter((row) => row.status === "active").map((row) => row.player);
    $("disqualify-player").replaceChildren(...active.map((name) => el("option", { value: name }, name)));
    disqualifiable = active.length > 0;
    if (detail) showDetail(detail);
  }

  function showCrosstable(data) {
    const head = el("tr", {}, el("th", { scope: "col", class: "sticky" }, _("Player")),
      data.players.map((_name, i) => el("th", { scope: "col", title: data.players[i] }, i + 1)));
    const rows = data.players.map((name, i) => el("tr", {},
      el("th", { scope: "row", class: "sticky" }, `${i + 1}. ${name}`),
      data.cells[i].map((cell, j) => el("td", { class: i === j ? "self" : "" },
        i === j ? "×" : cell.map(points).join(" ")))));
    $("crosstable").replaceChildren(el("thead", {}, head), el("tbody", {}, rows));
  }

  function tableItem(table) {
    const names = table.players.map((p) => p || _("stand-in bot"));
    let shown = names.join(" · ");
    if (table.result && names.length === 2) {
      shown = `${names[0]} ${points(table.result[0])} : ${points(table.result[1])} ${names[1]}`;
    } else if (table.result) {
      shown = names.map((name, i) => `${name} ${points(table.result[i])}`).join(" · ");
    }
    const label = table.match
      ? el("a", { href: `/matches/${table.match}` }, shown)
      : el("span", {}, shown, " ", el("span", { class: "muted" }, _("(forfeit)")));
    return el("li", {}, label,
      table.result ? "" : el("span", { class: "muted" }, " · " + _("in progress")),
      table.decided_by_stand_in ? el("span", { class: "muted" }, " · " + _("decided by the stand-in bot")) : "");
  }

  function showRounds(rounds) {
    $("rounds-panel").hidden = !rounds.length;
    if (!rounds.length) return;
    $("rounds").replaceChildren(...rounds.slice().reverse().map((r) => el("section", { class: "round" },
      el("h3", {}, _("Round %(n)s", { n: r.number })),
      el("p", { class: "muted" }, r.finished_at
        ? _("finished %(when)s", { when: localTime(r.finished_at) })
        : _("started %(start)s, time limit %(limit)s", { start: localTime(r.started_at), limit: localTime(r.limit_at) })),
      el("ul", { class: "match-list" }, r.tables.map(tableItem)),
      r.byes.length ? el("p", {}, _("Byes: %(names)s", { names: r.byes.join(", ") })) : "")));
  }

  function eventText(event) {
    const d = event.details || {};
    const parts = [words.event(event.type)];
    if (d.player && d.player !== event.author) parts.push(d.player);
    if (d.round) parts.push(_("round %(n)s", { n: d.round }));
    if (d.reason && typeof d.reason === "string" && event.type === "disqualified") parts.push("“" + d.reason + "”");
    return parts.join(" · ");
  }

  function showEvents(events) {
    $("events").replaceChildren(...events.slice().reverse().map((event) => el("li", {},
      el("span", { class: "muted" }, localTime(event.at) + " · "),
      event.author ? el("strong", {}, event.author + " ") : el("span", { class: "muted" }, _("system") + " "),
      eventText(event))));
  }

  async function refresh() {
    const [t, standings, crosstable, rounds, events] = await Promise.all(
      [BASE, `${BASE}/standings`, `${BASE}/crosstable`, `${BASE}/rounds`, `${BASE}/events`].map(read));
    if (t && !t.ok) {
      $("tournament-summary").textContent = problemText(t);
      return;
    }
    if (t) showDetail(t.data);
    if (standings && standings.ok) showStandings(standings.data);
    if (crosstable && crosstable.ok) showCrosstable(crosstable.data);
    if (rounds && rounds.ok) showRounds(rounds.data);
    if (events && events.ok) showEvents(events.data);
  }

  async function act(method, path, body) {
    const errorBox = $("action-error");
    errorBox.hidden = true;
    const answer = await api(method, path, body);
    if (!answer.ok) {
      errorBox.textContent = problemText(answer);
      errorBox.hidden = false;
      return null;
    }
    await refresh();
    return answer;
  }

  async function start() {
    const answer = await api("GET", "/games");
    games = answer.ok ? answer.data : [];
    for (const game of games) gameNames[game.slug] = game.name;
    $("join-button").addEventListener("click", () => act("POST", `${BASE}/join`));
    $("decline-button").addEventListener("click", () => act("POST", `${BASE}/decline`));
    $("withdraw-button").addEventListener("click", () => {
      const question = detail && detail.format === "arena"
        ? _("Leave the arena? You are not paired again until you join again; finish the match at hand.")
        : _("Withdraw from this tournament? You will not be paired again.");
      if (window.confirm(question)) act("POST", `${BASE}/withdraw`);
    });
    for (const button of document.querySelectorAll("#organiser-panel [data-action]")) {
      button.addEventListener("click", () => {
        if (button.dataset.action === "end" && !window.confirm(_("End the tournament now?"))) return;
        act("POST", `${BASE}/${button.dataset.action}`);
      });
    }
    $("add-player-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const username = $("add-player").value.trim();
      if (username && (await act("POST", `${BASE}/players`, { username }))) {
        $("add-player").value = "";
        toast(_("%(name)s is invited: they join or decline themselves.", { name: username }));
      }
    });
    $("disqualify-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const name = $("disqualify-player").value;
      if (!name || !window.confirm(_("Disqualify %(name)s?", { name }))) return;
      const reason = $("disqualify-reason").value.trim();
      await act("POST", `${BASE}/players/${encodeURIComponent(name)}/disqualify`, reason ? { reason } : {});
    });
    await refresh();
    // The stream says when the standings change; the poll (304s while nothing changed) covers
    // everything else and the servers that serve no streams.
    Facedown.follow(`tournament:${ID}`, `${BASE}/stream`, ["standings"], (type) => {
      if (type === "standings") refresh();
    }, () => {});
    setInterval(() => { if (!document.hidden) refresh(); }, 10000);
    setInterval(showTimeLeft, 1000);
  }

  start();
})();
