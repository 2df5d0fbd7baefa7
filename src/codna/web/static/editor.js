// The editor: a warning before text that was not saved is left, the switch between the text
// and its preview on a narrow screen, and the preview pane saying why a preview was refused.
// The preview itself is htmx's (attributes on the textarea); without this script the form
// still saves, and the preview of the saved text shows below the text.
(() => {
  "use strict";

  // The fields a person types into, as one string: what "unsaved" is measured against.
  function typed(form) {
    return Array.from(form.querySelectorAll("textarea, input[type=text]"))
      .map((field) => `${field.name}=${field.value}`)
      .join("\u0000");
  }

  // A form shown again after a refusal (data-unsaved) holds text that was never saved.
  function warnBeforeLeaving(form) {
    const loaded = form.hasAttribute("data-unsaved") ? null : typed(form);
    let sending = false;
    // Setting returnValue is what makes browsers ask; the sentence itself is theirs.
    const warn = (event) => {
      event.preventDefault();
      event.returnValue = "";
    };
    let warning = false;
    const update = () => {
      const unsaved = !sending && typed(form) !== loaded;
      if (unsaved && !warning) {
        window.addEventListener("beforeunload", warn);
      } else if (!unsaved && warning) {
        window.removeEventListener("beforeunload", warn);
      }
      warning = unsaved;
    };
    form.addEventListener("input", update);
    form.addEventListener("submit", () => {
      sending = true;
      update();
    });
    update();
  }

  // On a narrow screen the text and its preview take turns; on a wide one (CSS hides the
  // switch) they stand side by side.
  function switchPanes(writing) {
    const switcher = writing.querySelector(".switch");
    if (!switcher) {
      return;
    }
    const show = (which) => {
      writing.dataset.showing = which;
      for (const button of switcher.querySelectorAll("button[data-show]")) {
        button.setAttribute("aria-pressed", String(button.dataset.show === which));
      }
    };
    switcher.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-show]");
      if (button) {
        show(button.dataset.show);
      }
    });
    show("text");
    switcher.hidden = false;
  }

  // A refused preview (too large, signed out, too many) answers with a fragment that says
  // why, under an error status: show it in the pane rather than drop it.
  document.addEventListener("htmx:beforeSwap", (event) => {
    const detail = event.detail;
    if (!detail.target || !detail.target.hasAttribute("data-preview")) {
      return;
    }
    if (detail.xhr.status >= 400 && detail.xhr.responseText.startsWith('<p class="error"')) {
      detail.shouldSwap = true;
      detail.isError = false;
    }
  });

  for (const form of document.querySelectorAll("form.editor")) {
    warnBeforeLeaving(form);
    for (const writing of form.querySelectorAll(".writing")) {
      switchPanes(writing);
    }
  }
})();
