/* Challenges in the lobby (GET/POST /api/v1/challenges, docs/programs.md): send one to a named
   player with the new-match form's game, options, seats, time control, rating and sealing;
   the ones to you (accept, or decline with a reason) and yours (cancel); how yours were
   answered. The account stream (lobby.js) and a slow poll keep the lists current. */
"use strict";

(() => {
  const { _, api, el, problemText, toast } = Facedown;
  const $ = (id) => document.getElementById(id);
  const POLL_MS = 4000;
  // My pending challenges, kept for this tab: when one leaves the list, its answer is shown.
  const STORE = "facedown-challenges-sent";
  const sent = new Set(JSON.parse(sessionStorage.getItem(STORE) || "[]"));
  const keep = () => sessionStorage.setItem(STORE, JSON.stringify([...sent]));

  // The API's decline reasons (social/models.py), as the challenger reads them.
  const REASONS = {
    generic: _("No, thank you"),
    later: _("Not now, ask me again later"),
    too_fast: _("Too fast for me"),
    too_slow: _("Too slow for me"),
    time_control: _("Not this time control"),
    rated: _("Rated matches only"),
    casual: _("Unrated matches only"),
    variant: _("Not this game or these options"),
    no_bot: _("No bot accounts"),
    only_bot: _("Bot accounts only"),
  };

  function terms(challenge) {
    const words = Facedown.matchTerms;
    const rating = challenge.rated ? _("rated") : _("unrated");
    return _("%(terms)s, %(rating)s", {
      terms: words.terms(challenge.game, challenge.seats, challenge.time_control), rating });
  }

  function item(challenge, incoming) {
    const who = incoming ? challenge.challenger : challenge.to;
    const id = `challenge-reason-${challenge.id}`;
    const actions = incoming
      ? el("div", { class: "challenge-actions" },
        el("div", { class: "row" },
          el("button", { type: "button", class: "primary", "aria-label": _("Accept the challenge of %(player)s", { player: who }),
            onclick: () => answer(challenge, "accept") }, _("Accept"))),
        el("div", { class: "field challenge-decline" },
          el("label", { for: id }, _("Reason to decline")),
          el("div", { class: "row" },
            el("select", { id, class: "challenge-reason" },
              Object.entries(REASONS).map(([value, text]) => el("option", { value }, text))),
            el("button", { type: "button", "aria-label": _("Decline the challenge of %(player)s", { player: who }),
              onclick: () => answer(challenge, "decline", { reason: $(id).value }) }, _("Decline")))))
      : el("div", { class: "row" },
        el("button", { type: "button", "aria-label": _("Cancel your challenge to %(player)s", { player: who }),
          onclick: () => answer(challenge, "cancel") }, _("Cancel")));
    return el("li", { class: "match-item challenge-item", dataset: { challengeId: challenge.id } },
      el("div", { class: "match-line" },
        el("strong", {}, terms(challenge)),
        el("span", { class: "muted" }, incoming ? _("from %(player)s", { player: who }) : _("to %(player)s, waiting", { player: who }))),
      el("div", { class: "match-players muted" }, Facedown.matchTerms.optionWords(challenge.game, challenge.options)),
      actions);
  }

  /** What became of a challenge of mine that is no longer pending. */
  function outcome(challenge) {
    const words = { player: challenge.to, game: Facedown.lobbyForm.gameName(challenge.game) };
    if (challenge.status === "accepted") {
      return el("li", { class: "match-item challenge-answer" },
        _("%(player)s accepted your %(game)s challenge.", words), " ",
        el("a", { href: `/matches/${challenge.match_id}` }, _("Open the match")));
    }
    if (challenge.status === "declined") {
      return el("li", { class: "match-item challenge-answer" },
        _("%(player)s declined your %(game)s challenge: %(reason)s", {
          ...words, reason: REASONS[challenge.decline_reason] || REASONS.generic }));
    }
    if (challenge.status === "expired") {
      return el("li", { class: "match-item challenge-answer" }, _("Your %(game)s challenge to %(player)s expired.", words));
    }
    return null; // canceled: by this player, who saw it go
  }

  let drawn = "";

  async function refresh() {
    const answer = await api("GET", "/challenges");
    if (!answer.ok) return;
    const { incoming, outgoing } = answer.data;
    // only those to a named player: an open one or one to a house bot is not sent from here
    const mine = outgoing.filter((c) => c.to);
    // A poll redraws a list only when it changed, and keeps the reasons already picked: it
    // must not undo a choice, nor take the focus from a keyboard user, a moment before Decline.
    const shape = JSON.stringify([incoming, mine]);
    if (shape !== drawn) {
      drawn = shape;
      const picked = new Map([...document.querySelectorAll("#challenges-in select.challenge-reason")]
        .map((select) => [select.id, select.value]));
      $("challenges-in").replaceChildren(...incoming.map((c) => item(c, true)));
      for (const [id, value] of picked) { if ($(id)) $(id).value = value; }
      $("challenges-out").replaceChildren(...mine.map((c) => item(c, false)));
    }
    $("challenges-in-empty").hidden = incoming.length > 0;
    $("challenges-out-empty").hidden = mine.length > 0;
    for (const c of mine) sent.add(c.id);
    for (const id of [...sent]) {
      if (mine.some((c) => c.id === id)) continue;
      sent.delete(id);
      const read = await api("GET", `/challenges/${id}`);
      const shown = read.ok ? outcome(read.data) : null;
      if (shown) $("challenge-answers").prepend(shown);
    }
    keep();
  }

  async function answer(challenge, action, body) {
    const done = await api("POST", `/challenges/${challenge.id}/${action}`, body);
    if (!done.ok) { toast(problemText(done)); refresh(); return; }
    if (action === "accept") { window.location.href = `/matches/${done.data.match_id}`; return; }
    if (action === "cancel") sent.delete(challenge.id);
    toast(action === "cancel" ? _("Challenge canceled.") : _("Challenge declined."));
    refresh();
  }

  async function send() {
    const form = Facedown.lobbyForm;
    const errorBox = $("create-error");
    errorBox.hidden = true;
    const body = {
      game: form.game(), to: $("challenge-to").value.trim(), seats: form.players(),
      options: form.options(), rated: $("rated").checked, protocol: $("protocol").value,
    };
    const tc = form.timeControl();
    if (tc) body.time_control = tc;
    $("challenge-button").disabled = true;
    try {
      const done = await api("POST", "/challenges", body);
      if (!done.ok) {
        errorBox.textContent = problemText(done);
        errorBox.hidden = false;
        return;
      }
      sent.add(done.data.id);
      keep();
      $("challenge-to").value = "";
      toast(_("Challenge sent to %(player)s.", { player: done.data.to }));
      refresh();
    } finally {
      $("challenge-button").disabled = false;
    }
  }

  $("challenge-button").addEventListener("click", send);
  $("challenge-to").addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); send(); }
  });
  document.addEventListener("facedown:games", refresh);
  document.addEventListener("facedown:me", refresh);
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
})();
