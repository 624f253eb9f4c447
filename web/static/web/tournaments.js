/* The tournaments page: the lists by status (GET /api/v1/tournaments, filtered by game) and the
   creation form (POST /api/v1/tournaments), whose clock fields are the lobby's (clockform.js). */
"use strict";

(() => {
  const { _, api, problemText, el, localTime } = Facedown;
  const words = Facedown.tournamentWords;
  const $ = (id) => document.getElementById(id);
  const gameNames = {};
  let games = [];
  const gameName = (slug) => gameNames[slug] || slug;

  const LISTS = { registering: "list-registering", running: "list-running", paused: "list-running", finished: "list-finished" };

  function item(t) {
    const when = t.status === "registering" ? _("starts %(when)s", { when: localTime(t.starts_at) }) : "";
    return el("li", { class: "match-item" },
      el("a", { href: `/tournaments/${t.id}` }, t.name),
      el("span", { class: "muted" }, " ", words.summary(t, gameName), when ? " · " + when : ""));
  }

  let asked = 0;
  async function refresh() {
    const game = $("filter-game").value;
    const mine = ++asked;
    const answer = await api("GET", "/tournaments" + (game ? `?game=${encodeURIComponent(game)}` : ""));
    if (mine !== asked) return;  // a later choice of game has its own answer coming
    if (!answer.ok) {
      $("tournaments-status").textContent = problemText(answer);
      return;
    }
    const lists = { "list-registering": [], "list-running": [], "list-finished": [] };
    for (const t of answer.data.results) {
      const list = LISTS[t.status];
      if (list) lists[list].push(item(t));
    }
    // Only the lists that hold something; with none at all, one message says so.
    for (const [id, items] of Object.entries(lists)) {
      $(id).replaceChildren(...items);
      $(id).closest("section").hidden = !items.length;
    }
    const none = game ? _("No tournaments of this game yet.") : _("No tournaments yet.");
    $("tournaments-status").textContent = answer.data.results.length ? "" : none;
  }

  function formatShow() {
    const format = $("t-format").value;
    $("t-rounds-field").hidden = format !== "swiss";
    $("t-withdrawn-field").hidden = !format.endsWith("round_robin");
    $("t-draws-field").hidden = format !== "knockout";
    for (const id of ["t-arena-field", "t-streaks-field", "t-berserk-field"]) $(id).hidden = format !== "arena";
    $("t-bots-field").hidden = format !== "arena" && format !== "swiss";
  }

  // The chosen game's options (the lobby's fields) and its table sizes.
  function renderOptions() {
    const game = games.find((g) => g.slug === $("game").value);
    const box = $("options");
    box.replaceChildren();
    if (!game) return;
    const props = (game.options && game.options.properties) || {};
    for (const [name, prop] of Object.entries(props)) {
      const field = Facedown.optionForm.optionControl(name, prop);
      if (field) box.append(field);
    }
    $("options-fieldset").hidden = !box.children.length;
    const seats = $("t-seats");
    seats.min = Math.max(2, game.players.min);
    seats.max = game.players.max;
    seats.value = Math.min(Math.max(Number(seats.value) || 2, Number(seats.min)), game.players.max);
  }

  const number = (id) => ($(id).value === "" ? null : Number($(id).value));
  // datetime-local has no zone: read as the browser's local time and sent as an instant.
  const instant = (id) => ($(id).value ? new Date($(id).value).toISOString() : null);

  function body() {
    const format = $("t-format").value;
    const data = {
      name: $("t-name").value.trim(),
      game: $("game").value,
      options: Facedown.optionForm.readOptions($("options")),
      seats: number("t-seats"),
      format,
      rated: $("t-rated").checked,
      stand_in_bot: $("t-stand-in").value,
      round_interval_days: number("t-interval"),
      round_limit_seconds: Math.round((number("t-limit") || 0) * 86400),
      visibility: $("t-visibility").value,
      min_rating: number("t-min-rating"),
      max_rating: number("t-max-rating"),
      min_rated_games: number("t-min-games") || 0,
      min_account_days: number("t-min-days") || 0,
      max_players: number("t-max-players"),
      registration_opens_at: instant("t-opens"),
      registration_closes_at: instant("t-closes"),
      starts_at: instant("t-starts"),
      time_control: Facedown.clockForm.readTimeControl(),
    };
    if (format === "swiss") data.rounds = number("t-rounds");
    if (format.endsWith("round_robin")) data.withdrawn_games = $("t-withdrawn").value;
    if (format === "knockout") data.knockout_draws = $("t-draws").value;
    if (format === "arena") {
      data.arena_minutes = number("t-arena-minutes");
      data.streaks = $("t-streaks").checked;
      data.berserk = $("t-berserk").checked;
    }
    if (format === "arena" || format === "swiss") data.admit_bots = $("t-admit-bots").checked;
    return data;
  }

  async function create(event) {
    event.preventDefault();
    const errorBox = $("create-error");
    errorBox.hidden = true;
    $("create-button").disabled = true;
    try {
      const answer = await api("POST", "/tournaments", body());
      if (answer.ok) {
        window.location.assign(`/tournaments/${answer.data.id}`);
        return;
      }
      errorBox.textContent = problemText(answer);
      errorBox.hidden = false;
    } finally {
      $("create-button").disabled = false;
    }
  }

  function localInput(date) {
    const pad = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }

  async function start() {
    const answer = await api("GET", "/games");
    games = answer.ok ? answer.data : [];
    for (const game of games) gameNames[game.slug] = game.name;
    $("game").replaceChildren(...games.map((g) => el("option", { value: g.slug }, g.name)));
    $("filter-game").append(...games.map((g) => el("option", { value: g.slug }, g.name)));
    $("filter-game").addEventListener("change", refresh);
    $("game").addEventListener("change", renderOptions);
    renderOptions();
    $("t-format").addEventListener("change", formatShow);
    $("tc-kind").addEventListener("change", Facedown.clockForm.timeControlShow);
    $("t-starts").value = localInput(new Date(Date.now() + 86400 * 1000));
    for (const id of ["t-opens", "t-closes", "t-starts"]) Facedown.echoDate($(id));
    $("create-form").addEventListener("submit", create);
    formatShow();
    await refresh();
    setInterval(() => { if (!document.hidden) refresh(); }, 15000);
  }

  start();
})();
