// The site's header on a phone: its links fold into a menu behind one button. Without this
// script the header stays as it is, every link shown.
(() => {
  const root = document.documentElement;
  root.classList.add("js");
  const button = document.getElementById("menu-button");
  const menu = document.getElementById("site-menu");
  if (button && menu) {
    button.addEventListener("click", () => {
      const open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
      menu.classList.toggle("open", open);
    });
  }
  // The tree beside a page starts open where there is room for it.
  const tree = document.querySelector("details.tree-box");
  if (tree && window.matchMedia("(min-width: 56rem)").matches) {
    tree.open = true;
  }
})();
