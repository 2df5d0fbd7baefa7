// The JSON API's description, drawn by Swagger UI from this server's own files (no CDN).
window.addEventListener("DOMContentLoaded", function () {
  window.SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
});
