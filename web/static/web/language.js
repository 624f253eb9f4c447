/* The language switcher in the top bar: a choice takes effect at once (the form's button
   stays for browsers without JavaScript). */
"use strict";

(() => {
  const select = document.getElementById("language-select");
  const apply = document.getElementById("language-apply");
  if (!select || !apply) return;
  apply.hidden = true;
  select.addEventListener("change", () => select.form.submit());
})();
