/* Facedown web client: the seats' clocks of a timed match, counted down in the browser.
   The match resource never changes with the wall clock (docs/api.md, "Clocks"): a running
   clock is `remaining` seconds as of `running_since`, and `expires_at` is when it runs out,
   weekends already accounted for. The server decides a timeout; at zero this only shows 0. */
"use strict";

Facedown.clock = (() => {
  const DAY = 86400;
  const { _, el, localTime } = Facedown;
  const TEXT = {
    moved: "—",
    movedLabel: _("moved: stopped until the step resolves"),
    held: _("held until %(time)s"),
    vacation: _("on vacation until %(time)s"),
    paused: _("paused until %(time)s"),
    weekend: _("weekend pause"),
    running: _("(running)"),
    periods: (n, period) => _("+ %(count)s×%(period)s", { count: n, period: span(period) }),
  };

  /** "1:05:09" under a day, "2d 5h" from a day up. */
  function span(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    if (s >= DAY) {
      const d = Math.floor(s / DAY), h = Math.floor((s % DAY) / 3600);
      return h ? _("%(d)sd %(h)sh", { d, h }) : _("%(d)sd", { d });
    }
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    return h + ":" + String(m).padStart(2, "0") + ":" + String(sec).padStart(2, "0");
  }

  /** A text of TEXT with "%(time)s" in it, the moment `iso` put there as a <time>. */
  function withTime(text, iso) {
    const [before, after = ""] = text.split("%(time)s");
    return [before, el("time", { datetime: iso }, localTime(iso)), after].filter((part) => part !== "");
  }

  // ---- weekends: Saturday and Sunday in the clock's time zone don't count -----------------

  const weekdayFormats = {};
  function isWeekend(ms, zone) {
    let format = weekdayFormats[zone];
    if (!format) {
      try { format = new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "short" }); }
      catch (err) { format = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", weekday: "short" }); }
      weekdayFormats[zone] = format;
    }
    const day = format.format(new Date(ms));
    return day === "Sat" || day === "Sun";
  }

  /** The first moment in (lo, hi] whose weekend-ness differs from lo's (to the second). */
  function edge(lo, hi, zone) {
    const start = isWeekend(lo, zone);
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (isWeekend(mid, zone) === start) lo = mid; else hi = mid;
    }
    return hi;
  }

  /** Weekend intervals [from, to] between two moments, found hour by hour, edges refined. */
  function weekends(from, to, zone) {
    const found = [];
    let at = from, inside = isWeekend(from, zone), began = inside ? from : null;
    while (at < to) {
      const next = Math.min(at + 3600 * 1000, to);
      if (isWeekend(next, zone) !== inside) {
        const flip = edge(at, next, zone);
        if (inside) found.push([began, flip]); else began = flip;
        inside = !inside;
      }
      at = next;
    }
    if (inside) found.push([began, to]);
    return found;
  }

  // ---- one seat's clock ----------------------------------------------------------------------

  /** What to show of a seat's clock at `now` (ms): {text, extra (byo-yomi periods), label,
      running, notes}. Spans of
      weekend are worked out once per reading of the match (`cache`), not every second. */
  function seatState(match, clock, now, cache) {
    const tc = match.time_control || {};
    const period = tc.kind === "byoyomi" ? tc.period_seconds : 0;
    const notes = [];
    if (clock.vacation_until && Date.parse(clock.vacation_until) > now) {
      notes.push([TEXT.vacation, clock.vacation_until]);
    }
    if (clock.remaining === null) {
      return { text: TEXT.moved, extra: null, label: TEXT.movedLabel, running: false, notes };
    }
    const since = clock.running_since ? Date.parse(clock.running_since) : null;
    let total = clock.remaining + (period ? (clock.periods_left || 0) * period : 0);
    let running = false;
    // Held by the agreed pause: the page's one "paused until" line says so already.
    const byPause = match.paused_until && since === Date.parse(match.paused_until);
    if (since !== null && since > now && !notes.length && !byPause) notes.push([TEXT.held, clock.running_since]);
    if (since !== null && since <= now && clock.expires_at) {
      const expires = Date.parse(clock.expires_at);
      let counted = expires - now;
      if (tc.weekend_pause && clock.time_zone) {
        const key = `${clock.seat}|${clock.expires_at}`;
        if (!cache[key]) cache[key] = weekends(since, expires, clock.time_zone);
        for (const [a, b] of cache[key]) counted -= Math.max(0, Math.min(b, expires) - Math.max(a, now));
        running = !isWeekend(now, clock.time_zone);
        if (!running) notes.push([TEXT.weekend, null]);
      } else running = true;
      total = Math.max(0, counted / 1000);
    }
    let text = span(total), extra = null;
    if (period) {
      const periods = clock.periods_left || 0;
      const main = total - periods * period;
      if (total <= 0) [text, extra] = [span(0), TEXT.periods(0, period)];
      else if (main > 0 || !periods) [text, extra] = [span(main), TEXT.periods(periods, period)];
      else {
        // in byo-yomi: the period running now, and the ones after it
        const inPeriods = Math.ceil(total / period - 1e-9);
        text = span(total - (inPeriods - 1) * period);
        extra = TEXT.periods(Math.max(0, inPeriods - 1), period);
      }
    }
    return { text, extra, label: extra ? `${text} ${extra}` : text, running, notes };
  }

  return { span, seatState, isWeekend, withTime, TEXT };
})();
