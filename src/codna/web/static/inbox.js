// The review of suggestions, on the inbox and on a page's list of suggestions:
// - a live update replaces only the cards that changed (each card says its state in
//   data-state), so a reason half typed, a view switched or a diff opened in another stays;
//   a card decided elsewhere shows what was decided;
// - after a decision, focus moves to the next card;
// - the keyboard: j and k move between cards, a accepts, r goes to the reason to reject,
//   v switches between the source and the page as it will read, ? shows the keys;
// - the switch between the two views of a change, fetched once.
// Without this script every form still posts and every link still leads somewhere.
(() => {
  "use strict";

  const cards = () => Array.from(document.querySelectorAll("[data-cards] > li.card"));
  const cardOf = (element) => element && element.closest && element.closest("li.card");

  function focusCard(card) {
    if (!card) return;
    card.focus({preventScroll: true});
    card.scrollIntoView({block: "nearest"});
  }

  function parse(html) {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content;
  }

  function activate(element) {
    if (window.htmx) window.htmx.process(element);
  }

  // The two views of a change --------------------------------------------------------------

  async function showView(link) {
    const card = cardOf(link);
    if (!card) return;
    const wanted = link.dataset.view;
    const source = card.querySelector(".view-source");
    const rendered = card.querySelector(".view-rendered");
    if (wanted === "rendered" && rendered && !rendered.dataset.loaded) {
      const answer = await fetch(link.dataset.fragment, {headers: {"HX-Request": "true"}});
      if (!answer.ok) return; // the link itself still leads to the preview
      rendered.replaceChildren(parse(await answer.text()));
      rendered.dataset.loaded = "yes";
    }
    if (source) source.hidden = wanted !== "source";
    if (rendered) rendered.hidden = wanted !== "rendered";
    card.querySelectorAll("a.view").forEach((a) => {
      if (a.dataset.view === wanted) a.setAttribute("aria-current", "true");
      else a.removeAttribute("aria-current");
    });
  }

  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a.view");
    if (link && cardOf(link)) {
      event.preventDefault();
      showView(link);
    }
    const help = event.target.closest && event.target.closest("[data-help]");
    if (help) toggleHelp();
  });

  function toggleHelp() {
    const keys = document.getElementById("keys");
    if (!keys) return;
    keys.hidden = !keys.hidden;
    document.querySelectorAll("[data-help]").forEach((b) => {
      b.setAttribute("aria-expanded", String(!keys.hidden));
    });
  }

  // Focus after a decision -----------------------------------------------------------------

  let nextAfterDecision = null;

  // Counts the decisions made here: a live refresh fetched before one is out of date.
  let decisions = 0;

  document.addEventListener("htmx:beforeRequest", (event) => {
    const card = cardOf(event.target);
    if (!card) return;
    decisions += 1;
    const all = cards();
    const at = all.indexOf(card);
    nextAfterDecision = {id: card.id, next: (all[at + 1] || all[at - 1] || {}).id};
  });

  document.addEventListener("htmx:afterSettle", (event) => {
    // Only the settling of what the decision swapped in: the header's count may settle
    // between the decision's request and its answer.
    if (!nextAfterDecision || event.target.id !== nextAfterDecision.id) return;
    const {id, next} = nextAfterDecision;
    nextAfterDecision = null;
    const same = document.getElementById(id);
    if (same && same.classList.contains("card")) {
      focusCard(same); // refused: the card says why
    } else if (next && document.getElementById(next)) {
      focusCard(document.getElementById(next));
    } else if (same) {
      focusCard(same);
    }
  });

  // The keyboard ---------------------------------------------------------------------------

  function typing(element) {
    return element && (element.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName));
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const all = cards();
    const current = cardOf(document.activeElement);
    const at = all.indexOf(current);
    const act = (selector) => {
      const target = (current || all[0]) && (current || all[0]).querySelector(selector);
      if (!target) return false;
      event.preventDefault();
      if (target.tagName === "INPUT") target.focus();
      else target.click();
      return true;
    };
    switch (event.key) {
      case "j":
        if (all.length) { event.preventDefault(); focusCard(all[Math.min(at + 1, all.length - 1)]); }
        break;
      case "k":
        if (all.length) { event.preventDefault(); focusCard(all[Math.max(at - 1, 0)]); }
        break;
      case "a":
        act("button[data-key='a']");
        break;
      case "r":
        act("input[name='reason']");
        break;
      case "v": {
        const card = current || all[0];
        const views = card ? Array.from(card.querySelectorAll("a.view")) : [];
        const other = views.find((a) => !a.hasAttribute("aria-current"));
        if (other) { event.preventDefault(); showView(other); }
        break;
      }
      case "?":
        event.preventDefault();
        toggleHelp();
        break;
    }
  });

  // Live updates ---------------------------------------------------------------------------

  const lists = document.querySelector("[data-live]");
  let pending = null;

  function carryOver(from, to) {
    // What was typed, and where the focus was, survive a card being replaced.
    from.querySelectorAll("input[name='reason']").forEach((input) => {
      const twin = to.querySelector(`input[name='reason'][id='${input.id}']`);
      if (twin && input.value) twin.value = input.value;
    });
    const focused = from.contains(document.activeElement) ? document.activeElement : null;
    return focused && focused.id ? focused.id : null;
  }

  function replaceCard(old, fresh) {
    const focusedId = carryOver(old, fresh);
    const wasFocused = document.activeElement === old;
    old.replaceWith(fresh);
    activate(fresh);
    if (focusedId && document.getElementById(focusedId)) document.getElementById(focusedId).focus();
    else if (wasFocused) fresh.focus({preventScroll: true});
  }

  async function settledElsewhere(card) {
    const kind = card.id.startsWith("link-") ? "links" : "changes";
    const id = card.id.replace(/^\w+-/, "");
    const answer = await fetch(`/inbox/${kind}/${id}`, {headers: {"HX-Request": "true"}});
    if (answer.status === 404) { if (card.isConnected) card.remove(); return; }
    if (!answer.ok) return;
    const fresh = parse(await answer.text()).querySelector("li.card");
    if (!card.isConnected) return; // decided here meanwhile
    if (fresh && fresh.dataset.state !== card.dataset.state) replaceCard(card, fresh);
  }

  function schedule() {
    clearTimeout(pending);
    pending = setTimeout(() => { refresh().catch(() => {}); }, 150);
  }

  async function refresh() {
    const made = decisions;
    const answer = await fetch(lists.dataset.live, {headers: {"Accept": "text/html"}});
    if (!answer.ok) return;
    const text = await answer.text();
    if (made !== decisions) { schedule(); return; } // a decision since: fetch again
    const page = new DOMParser().parseFromString(text, "text/html");
    const fresh = page.querySelector("[data-live]");
    if (!fresh) return;
    const seen = new Set();
    fresh.querySelectorAll("section[aria-labelledby]").forEach((section) => {
      const label = section.getAttribute("aria-labelledby");
      const here = lists.querySelector(`section[aria-labelledby='${label}']`);
      if (!here) return;
      const freshList = section.querySelector("[data-cards]");
      const hereList = here.querySelector("[data-cards]");
      if (!freshList || !hereList) {
        // No cards on one side: nothing typed here can be lost, unless a card is still shown.
        if (!hereList || !hereList.querySelector("li.card")) {
          const copy = document.importNode(section, true);
          here.replaceWith(copy);
          activate(copy);
        }
        if (freshList) return;
        if (hereList) hereList.querySelectorAll("li.card").forEach((c) => settledElsewhere(c));
        const count = section.querySelector(".count");
        const countHere = here.querySelector(".count");
        if (count && countHere) countHere.textContent = count.textContent;
        return;
      }
      const count = section.querySelector(".count");
      const countHere = here.querySelector(".count");
      if (count && countHere) countHere.textContent = count.textContent;
      let previous = null;
      freshList.querySelectorAll(":scope > li.card").forEach((card) => {
        seen.add(card.id);
        const old = document.getElementById(card.id);
        const copy = document.importNode(card, true);
        if (old && old.classList.contains("decided")) return; // decided here: stays so
        if (old && old.dataset.state === card.dataset.state) {
          previous = old;
          return;
        }
        if (old) {
          replaceCard(old, copy);
        } else {
          copy.classList.add("arrived");
          if (previous) previous.after(copy);
          else hereList.prepend(copy);
          activate(copy);
        }
        previous = copy;
      });
      hereList.querySelectorAll(":scope > li.card").forEach((card) => {
        if (!seen.has(card.id) && card.dataset.state.startsWith("pending:")) settledElsewhere(card);
      });
    });
  }

  if (lists) {
    // The header's badge listens to the live events; each one bubbles up to here.
    document.body.addEventListener("htmx:sseMessage", (event) => {
      if (event.detail && event.detail.type && event.detail.type !== "inbox") return;
      schedule();
    });
  }
})();
