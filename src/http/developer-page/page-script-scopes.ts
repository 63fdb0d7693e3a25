/**
 * A part of /developer/assets/developer.js: the scope pickers of the key form and the test-token
 * form. One row per resource with None / Read / Write (as Stripe's restricted keys): Read is
 * `<resource>.read`, Write adds every write scope of the resource. Each row lists the scopes its
 * choice grants, so every scope stays visible. Also the hint for a 403 naming a missing scope,
 * in the pickers' words. Plain browser JavaScript, no build step.
 */
export const SCOPES_SCRIPT = String.raw`var scopePicker = (function () {
  var LEVELS = [['none', 'None'], ['read', 'Read'], ['write', 'Write']];

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function grantedBy(resource, level) {
    if (level === 'read') return resource.read ? [resource.read] : [];
    if (level === 'write') return (resource.read ? [resource.read] : []).concat(resource.write);
    return [];
  }

  function isAvailable(resource, level) {
    return level === 'none' || (level === 'read' ? !!resource.read : resource.write.length > 0);
  }

  // Fills the container with a table: resource, three radios, the scopes granted. name prefixes the radio groups.
  function render(container, resources, name, initialLevel) {
    var table = el('table', 'scope-picker');
    var head = el('tr');
    ['Resource', 'Access', 'Grants'].forEach(function (t) { head.appendChild(el('th', null, t)); });
    table.appendChild(el('thead')).appendChild(head);
    var tbody = table.appendChild(el('tbody'));
    resources.forEach(function (resource) {
      var tr = el('tr');
      tr.dataset.resource = resource.resource;
      tr.appendChild(el('td', 'resource', resource.resource));
      var grants = el('td', 'grants');
      function showGrants(level) {
        var scopes = grantedBy(resource, level);
        grants.replaceChildren();
        if (scopes.length === 0) grants.appendChild(el('span', 'muted', 'nothing'));
        scopes.forEach(function (s) { grants.appendChild(el('span', 'chip', s)); });
      }
      var start = isAvailable(resource, initialLevel) ? initialLevel : 'none';
      var levels = el('td', 'levels');
      LEVELS.forEach(function (pair) {
        var level = pair[0];
        var available = isAvailable(resource, level);
        var label = el('label', 'check');
        var input = el('input');
        input.type = 'radio';
        input.name = name + '-' + resource.resource;
        input.value = level;
        input.disabled = !available;
        input.checked = input.defaultChecked = level === start;
        input.setAttribute('aria-label', pair[1] + ' for ' + resource.resource);
        input.addEventListener('change', function () { if (input.checked) showGrants(level); });
        label.appendChild(input);
        label.appendChild(document.createTextNode(' ' + pair[1]));
        if (!available) label.title = 'No ' + level + ' procedures for ' + resource.resource;
        levels.appendChild(label);
      });
      tr.appendChild(levels);
      tr.appendChild(grants);
      tbody.appendChild(tr);
      showGrants(chosenLevel(tr));
    });
    container.replaceChildren(table);
  }

  function chosenLevel(row) {
    var checked = row.querySelector('input[type=radio]:checked');
    return checked ? checked.value : 'none';
  }

  // The scopes the picker's choices grant, in the resources' order.
  function chosen(container, resources) {
    var out = [];
    resources.forEach(function (resource) {
      var row = container.querySelector('tr[data-resource="' + resource.resource + '"]');
      if (row) out = out.concat(grantedBy(resource, chosenLevel(row)));
    });
    return out;
  }

  // "missing scope: leads.create" in a 403 -> which box gives it, in the pickers' words.
  function missingScopeHint(message, holder, where) {
    var match = /missing scope: ([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)/.exec(message || '');
    if (!match) return null;
    var level = match[2] === 'read' ? 'Read' : 'Write';
    return 'This ' + holder + ' lacks ' + match[1] + '.' + match[2] + ': choose ' + level + ' for ' + match[1] + ' ' + where;
  }

  return { render: render, chosen: chosen, missingScopeHint: missingScopeHint };
})();
`;
