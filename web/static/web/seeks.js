/* Seeks in the lobby: the open seeks (GET /api/v1/seeks), "Play" on another player's seek
   (an equal seek of yours, which pairs at once), "Cancel" on yours, and "Find opponents"
   from the new-match form. A seek of yours that gets paired takes you to its match. */
"use strict";

(() => {
  const { _, api, el, problemText, toast, clientSeed } = Facedown;
  const $ = (id) => document.getElementById(id);
  const me = ($("whoami") || {}).textContent;
  const POLL_MS = 4000;
  const waiting = new Set(); // ids of my open seeks

  // "GOPS, 2 players, untimed" and the options in words: shared with challenges.js.
  function terms(game, players, tc) {
    const name = Facedown.lobbyForm ? Facedown.lobbyForm.gameName(game) : game;
    const words = { game: name, players };
    if (!tc) return _("%(game)s, %(players)s players, untimed", words);
    if (tc.kind === "fischer") {
      return _("%(game)s, %(players)s players, %(bank)s + %(increment)s a move", {
        ...words, bank: amount(tc.initial_seconds), increment: amount(tc.increment_seconds) });
    }
    if (tc.kind === "byoyomi") {
      return _("%(game)s, %(players)s players, %(bank)s then %(periods)s × %(period)s", {
        ...words, bank: amount(tc.main_seconds), periods: tc.periods, period: amount(tc.period_seconds) });
    }
    return _("%(game)s, %(players)s players, %(seconds)s s per step", { ...words, seconds: tc.per_step_seconds });
  }

  /** "3 d", "2 h" or "90 s": a time control's amounts, short. */
  function amount(seconds) {
    if (seconds % 86400 === 0) return _("%(n)s d", { n: seconds / 86400 });
    if (seconds % 3600 === 0) return _("%(n)s h", { n: seconds / 3600 });
    return _("%(n)s s", { n: seconds });
  }

  function optionWords(game, chosen) {
    const form = Facedown.lobbyForm;
    const shown = Object.entries(chosen || {}).map(([k, v]) =>
      (form ? form.optionText(game, k, v) : _("%(title)s: %(description)s", { title: Facedown.words(k), description: Facedown.valueLabel(v) })));
    return shown.join(" · ");
  }

  Facedown.matchTerms = { terms, optionWords };
  const describe = (seek) => terms(seek.game, seek.players, seek.time_control);
  const options = (seek) => optionWords(seek.game, seek.options);

  function item(seek) {
    const mine = seek.player === me;
    return el("li", { class: "match-item seek-item", dataset: { seekId: seek.id } },
      el("div", { class: "match-line" },
        el("strong", {}, describe(seek)),
        el("span", { class: "muted" }, mine ? _("your seek, waiting") : seek.bot ? _("by %(player)s (bot account)", seek) : _("by %(player)s", seek))),
      el("div", { class: "match-players muted" }, options(seek)),
      el("div", { class: "row" }, mine
        ? el("button", { type: "button", "aria-label": _("Cancel your %(game)s seek", seek), onclick: () => cancel(seek) }, _("Cancel"))
        : el("button", { type: "button", class: "primary", "aria-label": _("Play %(player)s", seek),
          onclick: () => post({ game: seek.game, players: seek.players, options: seek.options,
            time_control: seek.time_control }) }, _("Play"))));
  }

  async function refresh() {
    const answer = await api("GET", "/seeks");
    if (!answer.ok) return;
    const seeks = answer.data.results;
    $("seeks").replaceChildren(...seeks.map(item));
    $("seeks-empty").hidden = seeks.length > 0;
    for (const seek of seeks) if (seek.player === me) waiting.add(seek.id);
    for (const id of [...waiting]) {
      if (seeks.some((s) => s.id === id)) continue;
      waiting.delete(id);
      const mine = await api("GET", `/seeks/${id}`);
      if (mine.ok && mine.data.match) window.location.href = `/matches/${mine.data.match}`;
    }
  }

  async function post(body) {
    const answer = await api("POST", "/seeks", { ...body, client_seed: clientSeed() },
      { "Idempotency-Key": Facedown.randomHex() });
    if (!answer.ok) { toast(problemText(answer)); return; }
    if (answer.data.match) {
      window.location.href = `/matches/${answer.data.match}`;
      return;
    }
    waiting.add(answer.data.id);
    toast(_("Seek posted: waiting for opponents."));
    refresh();
  }

  async function cancel(seek) {
    const answer = await api("DELETE", `/seeks/${seek.id}`);
    if (answer.status !== 204) toast(problemText(answer));
    waiting.delete(seek.id);
    refresh();
  }

  function seekFromForm() {
    const form = Facedown.lobbyForm;
    const body = { game: form.game(), players: form.players(), options: form.options() };
    const tc = form.timeControl();
    if (tc) body.time_control = tc;
    post(body);
  }

  $("seek-button").addEventListener("click", seekFromForm);
  document.addEventListener("facedown:games", refresh);
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
})();
