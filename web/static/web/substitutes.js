/* Facedown web client: substitutes for abandoned seats (docs/api.md, "Substitutes"). On the
   match page: offer a seat its player left, take an offered seat over, decline or withdraw an
   offer, and who played which steps of a seat that changed hands. In the lobby: the seats to
   take over (GET /substitutes). */
"use strict";

Facedown.substitutes = (() => {
  const F = Facedown;
  const { _ } = F;
  const TEXT = {
    offeredTo: (seat, player, name) => _("Seat %(seat)s (%(player)s) is offered to %(name)s.", { seat: seat, player: player, name: name }),
    offeredAll: (seat, player) => _("Seat %(seat)s (%(player)s) is offered to anyone: its player left.", { seat: seat, player: player }),
    take: _("Take over this seat"),
    decline: _("Decline"),
    withdraw: _("Withdraw"),
    confirmTake: _("Take this seat over? You play its hand with a fresh clock from the next step, to the end; the match is not rated for you."),
    steps: (from, to) => (to === null ? _("from step %(from)s", { from: from }) : _("steps %(from)s–%(to)s", { from: from, to: to })),
    seatOf: (seat) => _("Seat %(seat)s", { seat: seat }),
    byWhom: (name) => _("offered by %(name)s", { name: name }),
    yours: _("Offered to you"),
  };

  /** Take the offer over, and go to its match. */
  async function take(offer) {
    if (!window.confirm(TEXT.confirmTake)) return null;
    const answer = await F.api("POST", `/matches/${offer.match}/substitutes/${offer.id}/accept`);
    if (answer.ok) window.location.href = `/matches/${offer.match}`;
    return answer;
  }

  /** The match page's panel. `changed()` asks the page to read the match again. */
  function setup(matchId, me, changed) {
    const $ = (id) => document.getElementById(id);
    let read = null; // the last GET /matches/{id}/substitutes
    let readAt = null; // the match version it was read at
    let error = null;

    function showError() {
      $("substitute-error").hidden = !error;
      $("substitute-error").textContent = error || "";
    }

    async function send(path, body) {
      const answer = await F.api("POST", `/matches/${matchId}/substitutes${path}`, body);
      error = answer.ok ? null : F.problemText(answer);
      showError();
      readAt = null;
      changed();
    }

    $("offer-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const invitee = $("offer-invitee").value.trim();
      send("", invitee ? { seat: Number($("offer-seat").value), invitee } : { seat: Number($("offer-seat").value) });
    });

    function mayOffer(match) {
      if (match.status !== "active") return false;
      const mine = match.you === null || match.you === undefined ? null : match.seats[match.you];
      return (mine && !mine.forfeited) || match.created_by === me;
    }

    function offerItem(match, offer, nameOf) {
      const seated = match.you !== null && match.you !== undefined;
      const forMe = offer.invitee === null || offer.invitee === me;
      const buttons = [];
      if (!seated && forMe && me) {
        buttons.push(F.el("button", { type: "button", class: "primary", onclick: async () => {
          const answer = await take(offer);
          if (answer && !answer.ok) { error = F.problemText(answer); showError(); }
        } }, TEXT.take));
      }
      if (offer.invitee === me) {
        buttons.push(F.el("button", { type: "button", onclick: () => send(`/${offer.id}/decline`) }, TEXT.decline));
      }
      if (mayOffer(match)) {
        buttons.push(F.el("button", { type: "button", onclick: () => send(`/${offer.id}/withdraw`) }, TEXT.withdraw));
      }
      const who = nameOf(offer.seat);
      const number = offer.seat + 1; // seats are numbered from 1 on the page
      return F.el("li", { dataset: { offer: offer.id } },
        offer.invitee ? TEXT.offeredTo(number, who, offer.invitee) : TEXT.offeredAll(number, who), " ",
        buttons.length ? F.el("span", { class: "row" }, buttons) : null);
    }

    function draw(match, nameOf) {
      const offers = (read ? read.offers : []).filter((o) => o.status === "open" && match.status === "active");
      const tenures = read ? read.tenures : [];
      $("offer-list").replaceChildren(...offers.map((o) => offerItem(match, o, nameOf)));
      $("tenure-list").replaceChildren(...tenures.map((t) =>
        F.el("li", {}, `${TEXT.seatOf(t.seat + 1)}: ${t.player}, ${TEXT.steps(t.from_step, t.to_step)}`)));
      $("tenures").hidden = !tenures.length;
      const offered = new Set(offers.map((o) => o.seat));
      const free = match.seats.filter((s) => s.forfeited && s.player && !offered.has(s.index));
      const canOffer = mayOffer(match) && F.proposals.correspondence(match.time_control || {}) &&
        Boolean(match.time_control) && free.length > 0;
      $("offer-form").hidden = !canOffer;
      if (canOffer) {
        const chosen = $("offer-seat").value;
        $("offer-seat").replaceChildren(...free.map((s) => F.el("option", { value: String(s.index) }, `${TEXT.seatOf(s.index + 1)} (${nameOf(s.index)})`)));
        if (free.some((s) => String(s.index) === chosen)) $("offer-seat").value = chosen;
      }
      $("substitutes-panel").hidden = !(offers.length || tenures.length || canOffer || error);
      showError();
    }

    /** Draw the panel for this reading of the match (its offers read again when it changed). */
    async function render(match, nameOf) {
      const relevant = match.time_control && match.status !== "open";
      if (!relevant) { $("substitutes-panel").hidden = true; return; }
      if (readAt !== match.version) {
        readAt = match.version;
        const answer = await F.api("GET", `/matches/${matchId}/substitutes`);
        if (answer.ok) read = answer.data;
      }
      draw(match, nameOf);
    }

    return { render };
  }

  /** The lobby's list of seats to take over. */
  function lobby(gameName) {
    const $ = (id) => document.getElementById(id);
    const me = ($("whoami") || {}).textContent;

    function item(offer) {
      const name = gameName(offer.game);
      return F.el("li", { class: "match-item", dataset: { offer: offer.id } },
        F.el("div", { class: "match-line" },
          F.el("a", { href: `/matches/${offer.match}`, class: "match-link" }, name),
          offer.invitee ? F.el("span", { class: "badge invited" }, TEXT.yours) : null,
          F.el("span", { class: "muted" }, `${TEXT.seatOf(offer.seat + 1)} · ${TEXT.byWhom(offer.offered_by)}`)),
        F.el("div", { class: "row" },
          F.el("button", { type: "button", class: "primary",
            "aria-label": _("Take over seat %(seat)s of a %(game)s match", { seat: offer.seat + 1, game: name }),
            onclick: async () => {
              const answer = await take(offer);
              if (answer && !answer.ok) F.toast(F.problemText(answer));
            } }, TEXT.take),
          offer.invitee && offer.invitee === me ? F.el("button", { type: "button", onclick: async () => {
            const answer = await F.api("POST", `/matches/${offer.match}/substitutes/${offer.id}/decline`);
            if (!answer.ok) F.toast(F.problemText(answer));
            refresh();
          } }, TEXT.decline) : null));
    }

    async function refresh() {
      const answer = await F.api("GET", "/substitutes");
      if (!answer.ok) return;
      $("open-seats").replaceChildren(...answer.data.results.map(item));
      $("open-seats-empty").hidden = answer.data.results.length > 0;
    }

    refresh();
    setInterval(() => { if (!document.hidden) refresh(); }, 8000);
    return { refresh };
  }

  // The lobby has a list of seats to take over: fill it (the games' names come with lobby.js).
  if (document.getElementById("open-seats")) {
    lobby((slug) => (F.lobbyForm ? F.lobbyForm.gameName(slug) : slug));
  }

  return { setup, lobby, TEXT };
})();
