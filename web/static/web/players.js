/* Facedown web client: the profile, leaderboard and series pages, and the rematch and series
   links of a finished match. Plain clients of GET /players/{name}, GET /games/{slug}/leaderboard,
   GET /series/{id} and POST /matches/{id}/rematch. */
"use strict";

(() => {
  const { api, el, problemText } = Facedown;
  const $ = (id) => document.getElementById(id);
  const who = (name, bot) =>
    name ? el("a", { href: `/players/${encodeURIComponent(name)}` }, name) : `bot (${bot})`;
  const number = (value) => (value === null || value === undefined ? "—" : value.toFixed(1));

  async function profile(root) {
    const name = root.dataset.username;
    const answer = await api("GET", `/players/${encodeURIComponent(name)}`);
    if (!answer.ok) { $("profile-status").textContent = problemText(answer); return; }
    const p = answer.data;
    const kind = p.bot ? "A bot account (a program), playing" : "Playing";
    $("profile-status").textContent = `${kind} since ${Facedown.localTime(p.joined)}.`;
    $("streak").textContent = p.streak.kind
      ? `Current streak: ${p.streak.length} ${p.streak.kind === "won" ? "won" : "not won"} in a row.`
      : "No finished match yet.";
    $("rating-rows").replaceChildren(...p.ratings.map((r) =>
      el("tr", {},
        el("td", {}, el("a", { href: `/leaderboard?game=${r.game}` }, r.game)),
        el("td", {}, number(r.rating)), el("td", {}, r.played), el("td", {}, r.won))));
    $("recent").replaceChildren(...p.recent.map((m) =>
      el("li", {},
        el("a", { href: `/matches/${m.id}` }, `${m.game}: ${m.players.map((x) => x || "?").join(" vs ")}`),
        ` — ${m.won ? "won" : "not won"}, ${Facedown.localTime(m.finished_at)}`)));
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
          el("td", {}, number(e.rating)), el("td", {}, e.played), el("td", {}, e.won)));
      if (append) $("board-rows").append(...rows); else $("board-rows").replaceChildren(...rows);
      next = answer.data.next;
      $("board-more").hidden = !next;
      const count = $("board-rows").children.length;
      $("board-status").textContent = count ? `${count} rated players shown.` : "No rated player yet.";
    }
    select.addEventListener("change", () => { next = null; load(false); });
    $("board-more").addEventListener("click", () => load(true));
    await load(false);
  }

  async function series(root) {
    const answer = await api("GET", `/series/${root.dataset.seriesId}`);
    if (!answer.ok) { $("series-status").textContent = problemText(answer); return; }
    const s = answer.data;
    $("series-title").textContent = `Series of ${s.length} (${s.game})`;
    const finished = s.matches.filter((m) => m.status === "finished").length;
    $("series-status").textContent = `${s.status}: ${finished} of ${s.length} matches finished.`;
    $("standing-rows").replaceChildren(...s.standings.map((e) =>
      el("tr", {}, el("td", {}, who(e.player, e.bot)), el("td", {}, e.played),
        el("td", {}, e.won), el("td", {}, e.points))));
    $("series-matches").replaceChildren(...s.matches.map((m) =>
      el("li", {}, el("a", { href: `/matches/${m.id}` }, `Match ${m.index + 1}: ${m.seats.join(" vs ")}`),
        ` — ${m.status}`)));
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
    if (m.series) links.push(el("a", { href: `/series/${m.series.id}` }, "Series standings"));
    const profiles = m.seats.filter((seat) => seat.player).map((seat) => who(seat.player));
    if (profiles.length) {
      links.push(el("span", {}, "Profiles: ", ...profiles.flatMap((a, i) => (i ? [", ", a] : [a]))));
    }
    const parts = [];
    if (m.status === "finished" && m.rematch) {
      parts.push(el("a", { href: `/matches/${m.rematch}`, class: "button primary" }, "Go to the rematch"));
    } else if (m.status === "finished" && m.you !== null) {
      parts.push(el("button", { type: "button", id: "rematch", class: "primary", onclick: async (event) => {
        event.target.disabled = true;
        const asked = await api("POST", `/matches/${id}/rematch`, {}, { "Idempotency-Key": Facedown.randomHex() });
        if (asked.ok) window.location.href = `/matches/${asked.data.id}`;
        else { event.target.disabled = false; Facedown.toast(problemText(asked)); }
      } }, "Rematch"));
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
