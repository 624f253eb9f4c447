/* Facedown web client: the profile, leaderboard and series pages, and the rematch and series
   links of a finished match. Plain clients of GET /players/{name}, GET /games/{slug}/leaderboard,
   GET /series/{id} and POST /matches/{id}/rematch. */
"use strict";

(() => {
  const { _, api, el, problemText } = Facedown;
  const $ = (id) => document.getElementById(id);
  const who = (name, bot) =>
    name ? el("a", { href: `/players/${encodeURIComponent(name)}` }, name) : _("bot (%(name)s)", { name: bot });
  /** The shown rating (the API's ``rating``, docs/api.md "Ratings"), "1540?" while provisional. */
  const rating = (r) => (r.rating === null || r.rating === undefined ? "—" : `${r.rating}${r.provisional ? "?" : ""}`);
  /** The catalogue's game names by slug (GET /games), so no page shows "gops". */
  let namesAsked = null;
  function gameNames() {
    namesAsked = namesAsked || api("GET", "/games").then((games) =>
      (games.ok ? Object.fromEntries(games.data.map((g) => [g.slug, g.name])) : {}));
    return namesAsked;
  }

  /** "Won the last 3 matches." in plain words: the profile's current streak. */
  function streakText(streak) {
    if (!streak.kind) return _("No finished match yet.");
    const won = streak.kind === "won";
    if (streak.length === 1) return won ? _("Won the last match.") : _("Did not win the last match.");
    return won ? _("Won the last %(length)s matches.", streak) : _("Did not win the last %(length)s matches.", streak);
  }

  async function profile(root) {
    const name = root.dataset.username;
    const [answer, names] = await Promise.all([api("GET", `/players/${encodeURIComponent(name)}`), gameNames()]);
    const gameName = (slug) => names[slug] || slug;
    if (!answer.ok) { $("profile-status").textContent = problemText(answer); return; }
    const p = answer.data;
    const since = Facedown.localTime(p.joined);
    $("profile-status").textContent = p.bot
      ? _("A bot account (a program), playing since %(since)s.", { since })
      : _("Playing since %(since)s.", { since });
    $("streak").textContent = streakText(p.streak);
    $("rating-rows").replaceChildren(...p.ratings.map((r) =>
      el("tr", {},
        el("td", {}, el("a", { href: `/leaderboard?game=${r.game}` }, gameName(r.game))),
        el("td", {}, rating(r)), el("td", {}, r.played), el("td", {}, r.won))));
    $("ratings-note").hidden = !p.ratings.some((r) => r.provisional && r.rating !== null);
    $("recent").replaceChildren(...p.recent.map((m) =>
      el("li", {},
        el("a", { href: `/matches/${m.id}` }, `${gameName(m.game)}: ${m.players.map((x) => x || "?").join(_(" vs "))}`),
        " — ", m.won ? _("won") : _("not won"), `, ${Facedown.localTime(m.finished_at)}`)));
  }

  async function leaderboard() {
    const games = await api("GET", "/games");
    const select = $("board-game");
    const wanted = new URLSearchParams(window.location.search).get("game");
    select.replaceChildren(...games.data.map((g) => el("option", { value: g.slug }, g.name)));
    if (wanted) select.value = wanted;
    let next = null;
    async function load(append) {
      const path = next && append ? next.slice(next.indexOf("/api/v1") + 7)
        : `/games/${select.value}/leaderboard?page_size=50`;
      const answer = await api("GET", path);
      if (!answer.ok) { $("board-status").textContent = problemText(answer); return; }
      const rows = answer.data.results.map((e) =>
        el("tr", {}, el("td", {}, e.rank), el("td", {}, who(e.player)),
          el("td", {}, rating(e)), el("td", {}, e.played), el("td", {}, e.won)));
      if (append) $("board-rows").append(...rows); else $("board-rows").replaceChildren(...rows);
      next = answer.data.next;
      $("board-more").hidden = !next;
      const count = $("board-rows").children.length;
      $("board-status").textContent = count ? _("%(count)s rated players shown.", { count }) : _("No rated player yet.");
      const marked = answer.data.results.some((e) => e.provisional);
      $("board-note").hidden = !(marked || (append && !$("board-note").hidden));
    }
    select.addEventListener("change", () => { next = null; load(false); });
    $("board-more").addEventListener("click", () => load(true));
    await load(false);
  }

  async function series(root) {
    const [answer, names] = await Promise.all([api("GET", `/series/${root.dataset.seriesId}`), gameNames()]);
    if (!answer.ok) { $("series-status").textContent = problemText(answer); return; }
    const s = answer.data;
    $("series-title").textContent = _("Series of %(length)s (%(game)s)", { ...s, game: names[s.game] || s.game });
    const finished = s.matches.filter((m) => m.status === "finished").length;
    const state = { running: _("running"), finished: _("finished"), aborted: _("aborted") }[s.status] || s.status;
    $("series-status").textContent = _("%(state)s: %(finished)s of %(length)s matches finished.", { state, finished, length: s.length });
    $("standing-rows").replaceChildren(...s.standings.map((e) =>
      el("tr", {}, el("td", {}, who(e.player, e.bot)), el("td", {}, e.played),
        el("td", {}, e.won), el("td", {}, e.points))));
    $("series-matches").replaceChildren(...s.matches.map((m) =>
      el("li", {}, el("a", { href: `/matches/${m.id}` }, _("Match %(number)s: %(players)s", { number: m.index + 1, players: m.seats.join(_(" vs ")) })),
        " — ", { open: _("open"), active: _("active"), finished: _("finished"), aborted: _("aborted") }[m.status] || m.status)));
    if (s.status === "running") setTimeout(() => series(root), 5000);
  }

  /* On a match page: once the match is over, a rematch button (or a link to the rematch),
     the series standings link and the players' profiles. */
  async function matchExtras(root) {
    const id = root.dataset.matchId;
    const box = $("after-match");
    const answer = await api("GET", `/matches/${id}`);
    if (!answer.ok) return;
    const m = answer.data;
    const links = [];
    if (m.series) links.push(el("a", { href: `/series/${m.series.id}` }, _("Series standings")));
    const profiles = m.seats.filter((seat) => seat.player).map((seat) => who(seat.player));
    if (profiles.length) {
      links.push(el("span", {}, _("Profiles:"), " ", ...profiles.flatMap((a, i) => (i ? [", ", a] : [a]))));
    }
    const parts = [];
    if (m.status === "finished" && m.rematch) {
      parts.push(el("a", { href: `/matches/${m.rematch}`, class: "button primary" }, _("Go to the rematch")));
    } else if (m.status === "finished" && m.you !== null) {
      parts.push(el("button", { type: "button", id: "rematch", class: "primary", onclick: async (event) => {
        event.target.disabled = true;
        const asked = await api("POST", `/matches/${id}/rematch`, {}, { "Idempotency-Key": Facedown.randomHex() });
        if (asked.ok) window.location.href = `/matches/${asked.data.id}`;
        else { event.target.disabled = false; Facedown.toast(problemText(asked)); }
      } }, _("Rematch")));
    }
    box.replaceChildren(...parts, ...links.flatMap((link, i) => (i ? [" · ", link] : [link])));
    box.hidden = !box.children.length;
    if (m.status === "open" || m.status === "active") setTimeout(() => matchExtras(root), 4000);
  }

  const pages = [
    ["profile", profile], ["leaderboard", leaderboard], ["series", series], ["match", matchExtras],
  ];
  for (const [id, show] of pages) {
    const root = $(id);
    if (root && (id !== "match" || $("after-match"))) show(root);
  }
})();
