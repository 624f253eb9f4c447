/* Facedown web client: pause and abort by agreement on the match page (docs/api.md, "Pause and
   abort by agreement"). The open proposal comes with the match resource (`proposal`), so the
   page draws it on every reading of the match; the buttons post to /matches/{id}/proposals. */
"use strict";

Facedown.proposals = (() => {
  const F = Facedown;
  const { _ } = F;
  const DAY = 86400;
  const LONGEST_DAYS = 14; // the server refuses a pause ending later than 14 days ahead
  const TEXT = {
    pause: (who, until) => [_("%(name)s proposes a pause until", { name: who }), " ", until, "."],
    abort: (who) => [_("%(name)s proposes to abort this match (no result, unrated).", { name: who })],
    expires: _("Open until"),
    expired: _("This proposal has expired."),
    accepted: (names) => _("Accepted so far: %(names)s.", { names: names }),
    accept: _("Accept"),
    decline: _("Decline"),
    withdraw: _("Withdraw"),
    confirmAbort: _("Propose to abort this match? It ends without a result once every other player accepts."),
    noDate: _("Choose the day the pause ends."),
  };

  /** A day or more per step or bank (games/clock.py, TimeControl.correspondence). */
  function correspondence(tc) {
    const longest = {
      per_step: tc.per_step_seconds || 0,
      fischer: Math.max(tc.initial_seconds || 0, tc.increment_seconds || 0),
      byoyomi: Math.max(tc.main_seconds || 0, tc.period_seconds || 0),
    }[tc.kind || "per_step"];
    return (longest || 0) >= DAY;
  }

  function pauseAllowed(match) {
    const tc = match.time_control;
    return Boolean(tc) && tc.allow_pause !== false && correspondence(tc);
  }

  /** The requester's seat, when it is a seat that may propose and answer. */
  function mySeat(match) {
    if (match.status !== "active" || match.you === null || match.you === undefined) return null;
    const seat = match.seats[match.you];
    return seat && !seat.forfeited ? seat : null;
  }

  const open = (match, now) => {
    const p = match.proposal;
    return p && Date.parse(p.expires_at) > now ? p : null;
  };

  /** yyyy-mm-dd of a day `days` from today, in the browser's time zone. */
  function dayFromNow(days) {
    const d = new Date(Date.now() + days * DAY * 1000);
    const pad = (n) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }

  /** The chosen day at this time of day, and never past the longest pause. */
  function untilOf(day) {
    const now = new Date();
    const pad = (n) => String(n).padStart(2, "0");
    const at = new Date(`${day}T${pad(now.getHours())}:${pad(now.getMinutes())}`);
    const latest = Date.now() + (LONGEST_DAYS * DAY - 60) * 1000;
    return new Date(Math.min(at.getTime(), latest)).toISOString();
  }

  function setup(matchId, changed) {
    const $ = (id) => document.getElementById(id);
    let error = null; // [element id, text]: kept across readings until the next action

    function showError() {
      for (const id of ["proposal-error", "propose-error"]) {
        const box = $(id);
        box.hidden = !(error && error[0] === id);
        box.textContent = error && error[0] === id ? error[1] : "";
      }
    }

    async function send(path, body, errorBox) {
      const answer = await F.api("POST", `/matches/${matchId}/proposals${path}`, body);
      error = answer.ok ? null : [errorBox, F.problemText(answer)];
      showError();
      changed();
    }

    const until = $("pause-until");
    until.value = dayFromNow(7);
    until.min = dayFromNow(1);
    until.max = dayFromNow(LONGEST_DAYS);
    Facedown.echoDate(until);
    $("pause-form").addEventListener("submit", (event) => {
      event.preventDefault();
      if (!until.value) { error = ["propose-error", TEXT.noDate]; showError(); return; }
      send("", { kind: "pause", until: untilOf(until.value) }, "propose-error");
    });
    $("propose-abort").addEventListener("click", () => {
      if (window.confirm(TEXT.confirmAbort)) send("", { kind: "abort" }, "propose-error");
    });

    /** Draw the banner and the proposing controls for this reading of the match. */
    function render(match, nameOf) {
      const now = Date.now();
      const me = mySeat(match);
      const p = match.status === "active" ? match.proposal : null;
      const live = open(match, now);
      const banner = $("proposal");
      banner.hidden = !p;
      if (p) {
        const who = nameOf(p.proposer);
        const text = p.kind === "pause" ?
          TEXT.pause(who, F.el("time", { datetime: p.until }, F.localTime(p.until))) : TEXT.abort(who);
        const answered = (p.accepted || []).includes(match.you);
        const buttons = [];
        if (live && me && p.proposer === match.you) {
          buttons.push(F.el("button", { type: "button", onclick: () => send(`/${p.id}/withdraw`, undefined, "proposal-error") }, TEXT.withdraw));
        } else if (live && me && !answered) {
          buttons.push(
            F.el("button", { type: "button", class: "primary", onclick: () => send(`/${p.id}/accept`, undefined, "proposal-error") }, TEXT.accept),
            F.el("button", { type: "button", onclick: () => send(`/${p.id}/decline`, undefined, "proposal-error") }, TEXT.decline));
        }
        $("proposal-text").replaceChildren(...text);
        $("proposal-state").replaceChildren(...(live ?
          [TEXT.accepted((p.accepted || []).map(nameOf).join(", ")), " ", TEXT.expires, " ",
            F.el("time", { datetime: p.expires_at }, F.localTime(p.expires_at)), "."] :
          [TEXT.expired]));
        $("proposal-actions").replaceChildren(...buttons);
        $("proposal-actions").hidden = !buttons.length;
      }
      const canPropose = Boolean(me) && !live;
      $("propose").hidden = !canPropose;
      $("pause-form").hidden = !canPropose || !pauseAllowed(match);
      showError();
    }

    return { render };
  }

  return { setup, pauseAllowed, correspondence, TEXT };
})();
