/* The game options' fields, generated from a game's JSON Schema (GET /api/v1/games) in the
   catalogue's words: shared by the lobby's match form and the tournament form. */
"use strict";

Facedown.optionForm = (() => {
  const { _, said, el } = Facedown;

  // An option as the catalogue words it (GET /games): its title, what it changes, and a short
  // title per choice in the select, the chosen one's longer description written below it, so
  // nothing is cut on a phone.
  function choicesOf(prop, nullable) {
    if (Array.isArray(prop.oneOf) && prop.oneOf.every((c) => "const" in c)) {
      return prop.oneOf.map((c) => ({ value: c.const, title: said(c.title) || Facedown.valueLabel(c.const),
        description: said(c.description) || "" }));
    }
    const types = [].concat(prop.type || []);
    if (!prop.enum && !(types.includes("boolean") && nullable)) return null;
    let values = prop.enum ? [...prop.enum] : [true, false];
    if (nullable && !values.includes(null)) values = [null, ...values];
    return values.map((v) => ({ value: v, title: v === null ? _("automatic") : Facedown.words(Facedown.valueLabel(v)),
      description: "" }));
  }

  function optionControl(name, prop) {
    const types = [].concat(prop.type || []);
    const nullable = types.includes("null") || prop.default === null;
    const id = `opt-${name}`;
    const label = el("label", { for: id }, said(prop.title) || Facedown.words(name));
    const help = el("small", { class: "help", id: `${id}-help` }, said(prop.description) || "");
    const choice = el("small", { class: "help choice-help", id: `${id}-choice`, "aria-live": "polite" });
    const choices = choicesOf(prop, nullable);
    let control;
    if (choices) {
      control = el("select", { id, "aria-describedby": `${id}-help ${id}-choice`, dataset: { opt: name, kind: "json" } },
        choices.map((c) => el("option", { value: JSON.stringify(c.value), selected: c.value === prop.default }, c.title)));
      const explain = () => {
        const picked = choices.find((c) => JSON.stringify(c.value) === control.value);
        choice.textContent = picked && picked.description ? _("%(title)s: %(description)s", picked) : "";
        choice.hidden = !choice.textContent;
      };
      control.addEventListener("change", explain);
      explain();
      return el("div", { class: "field" }, label, control, help, choice);
    }
    if (types.includes("boolean")) {
      control = el("input", { id, type: "checkbox", checked: prop.default === true,
        "aria-describedby": `${id}-help`, dataset: { opt: name, kind: "bool" } });
      return el("div", { class: "field check" }, control, el("div", {}, label, help));
    }
    if (types.includes("integer") || types.includes("number")) {
      control = el("input", {
        id, type: "number", inputmode: "numeric", min: prop.minimum, max: prop.maximum,
        step: types.includes("integer") ? 1 : "any",
        value: prop.default === null || prop.default === undefined ? "" : prop.default,
        placeholder: nullable ? _("automatic") : "", "aria-describedby": `${id}-help`,
        dataset: { opt: name, kind: "number", nullable: nullable ? "1" : "" },
      });
    } else if (types.includes("string")) {
      control = el("input", { id, type: "text", value: prop.default ?? "",
        "aria-describedby": `${id}-help`, dataset: { opt: name, kind: "string" } });
    } else {
      return null; // objects and arrays keep their defaults
    }
    return el("div", { class: "field" }, label, control, help);
  }

  function readOptions(box) {
    const options = {};
    for (const control of box.querySelectorAll("[data-opt]")) {
      const name = control.dataset.opt;
      switch (control.dataset.kind) {
        case "json": options[name] = JSON.parse(control.value); break;
        case "bool": options[name] = control.checked; break;
        case "number":
          if (control.value === "") {
            if (control.dataset.nullable) options[name] = null;
          } else options[name] = Number(control.value);
          break;
        default: options[name] = control.value;
      }
    }
    return options;
  }

  /** An option's title and its value in the catalogue's words, for pages that show a match's
      or a tournament's settings ("Order of the prizes: Shuffled"), never a key or a raw value. */
  function optionWords(props, name, value) {
    const prop = props[name];
    if (!prop) return null;
    const types = [].concat(prop.type || []);
    const choices = choicesOf(prop, types.includes("null") || prop.default === null) || [];
    const choice = choices.find((c) => JSON.stringify(c.value) === JSON.stringify(value));
    const shown = choice ? choice.title : value === null ? _("automatic") : Facedown.valueLabel(value);
    return { title: said(prop.title) || Facedown.words(name), description: shown };
  }

  return { choicesOf, optionControl, readOptions, optionWords };
})();
