/** The HTML shell of `/docs`: Swagger UI from its npm package, no inline script, no CDN. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Workspace API reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <noscript>The interactive reference needs JavaScript; the document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</noscript>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/docs.js"></script>
</body>
</html>
`;

/**
 * Starts Swagger UI on the document. Its built-in filter matches tag names only; this one matches
 * a procedure's name, path, summary, description or scope, so "invoices.create" or "tasks.read" find it.
 */
export const DOCS_SCRIPT = `'use strict';
function opsFilter(taggedOps, phrase) {
  var q = String(phrase || '').toLowerCase().trim();
  if (!q) return taggedOps;
  return taggedOps
    .map(function (tagObj, tag) {
      return tagObj.set('operations', tagObj.get('operations').filter(function (op) {
        var o = op.get('operation');
        var text = [tag, op.get('path'), op.get('method'), o.get('operationId'), o.get('summary'), o.get('description'), o.get('x-required-scope')].join(' ');
        return text.toLowerCase().indexOf(q) !== -1;
      }));
    })
    .filter(function (tagObj) { return tagObj.get('operations').size > 0; });
}
window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  filter: true,
  displayOperationId: true,
  showExtensions: true,
  // Keys stay in memory: never written to localStorage by the page.
  persistAuthorization: false,
  plugins: [
    function () { return { fn: { opsFilter: opsFilter } }; },
    // A read's input is a string whose content is JSON (contentMediaType): Swagger UI takes any
    // string with a media type for a file to upload; this one is typed in, as JSON text.
    function () {
      return {
        afterLoad: function () {
          var fileUpload = this.fn.isFileUploadIntended;
          this.fn.isFileUploadIntended = function (schema, mediaType) {
            var media = schema && (schema.get ? schema.get('contentMediaType') : schema.contentMediaType);
            return media === 'application/json' ? false : fileUpload(schema, mediaType);
          };
        },
      };
    },
  ],
});
`;
