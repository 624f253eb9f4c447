/* Tournament words shared by the list and the detail page: the API's codes (format, status,
   why_not, event types) in the page's language, and a tournament's summary line. */
"use strict";

Facedown.tournamentWords = (() => {
  const { _ } = Facedown;

  const FORMATS = {
    swiss: _("Swiss"),
    round_robin: _("Round robin"),
    double_round_robin: _("Double round robin"),
    knockout: _("Knockout"),
    arena: _("Arena"),
  };
  const STATUSES = {
    registering: _("registration"),
    running: _("running"),
    paused: _("paused"),
    finished: _("finished"),
    cancelled: _("cancelled"),
  };
  const ENTRY_STATUSES = { active: _("playing"), withdrawn: _("withdrawn"), disqualified: _("disqualified") };
  const WHY_NOT = {
    not_authenticated: _("Log in to join."),
    not_registering: _("Registration is over."),
    registration_not_open: _("Registration has not opened yet."),
    registration_closed: _("Registration is closed."),
    invitation_only: _("Only invited players may join."),
    rating_too_low: _("Your rating is below the minimum."),
    rating_too_high: _("Your rating is above the maximum."),
    too_few_rated_games: _("You have played too few rated games."),
    account_too_new: _("Your account is too new."),
    full: _("The tournament is full."),
    registered: _("You are registered."),
    disqualified: _("You were disqualified."),
    arena_over: _("The arena is over."),
    bots_not_admitted: _("This tournament does not admit bot accounts."),
    too_many_arenas: _("You are in as many arenas as one may be at once."),
  };
  const EVENTS = {
    created: _("created the tournament"),
    joined: _("joined"),
    withdrew: _("withdrew"),
    player_added: _("added a player"),
    invited: _("invited a player"),
    declined: _("declined the invitation"),
    disqualified: _("disqualified a player"),
    started: _("started the tournament"),
    round_started: _("round started"),
    round_finished: _("round finished"),
    round_limit: _("round time limit reached: the stand-in bot plays on"),
    paused: _("paused the tournament"),
    resumed: _("resumed the tournament"),
    ended: _("ended the tournament"),
    finished: _("tournament finished"),
    paired: _("players paired"),
    berserk: _("went berserk"),
  };

  const word = (table, code) => table[code] || code;

  /** "Swiss · Rounds: 5 · 2 per table · Players: 7": a tournament in one line. */
  function summary(t, gameName) {
    const parts = [gameName(t.game), word(FORMATS, t.format)];
    if (t.rounds) parts.push(_("Rounds: %(n)s", { n: t.rounds }));
    parts.push(_("%(n)s per table", { n: t.seats }));
    parts.push(_("Players: %(n)s", { n: t.players }));
    parts.push(word(STATUSES, t.status));
    return parts.join(" · ");
  }

  /** Why the player may not join; a rating condition with both numbers, as players read them. */
  function whyNot(code, t) {
    const rating = t && t.you ? t.you.rating : null;
    if (code === "rating_too_low" && rating !== null && t.min_rating !== null) {
      return _("Your rating, %(rating)s, is below the minimum of %(limit)s.", { rating, limit: t.min_rating });
    }
    if (code === "rating_too_high" && rating !== null && t.max_rating !== null) {
      return _("Your rating, %(rating)s, is above the maximum of %(limit)s.", { rating, limit: t.max_rating });
    }
    return word(WHY_NOT, code);
  }

  return {
    format: (code) => word(FORMATS, code),
    status: (code) => word(STATUSES, code),
    entryStatus: (code) => word(ENTRY_STATUSES, code),
    whyNot,
    event: (code) => word(EVENTS, code),
    summary,
  };
})();
