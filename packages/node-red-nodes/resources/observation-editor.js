// Editor code shared by the Observation nodes' edit dialogs (observation-events,
// observation-task-watch). Node-RED (>= 1.3) serves this package's resources/ folder at
// resources/@observation-service/node-red-observation/ and loads this script before the nodes'
// own editor code runs, so each .html can keep its literal RED.nodes.registerType call.
// Every dialog uses its node type as prefix: message keys `<type>.editor.*`, elements
// `#<type>-tasks-status`, `#<type>-refresh`, `.<type>-pick-row`, `.<type>-ids-row`.
(() => {
  // Relative URL: works under any httpAdminRoot and behind a proxy path.
  function adminUrl(serverId, what) {
    return 'observation-server/' + encodeURIComponent(serverId) + '/' + what;
  }

  // The `defaults` entries of the task choice (all tasks, tasks picked from the list, or typed
  // ids) are written out in each node's registerType call, because the flow library reads node
  // definitions with a parser that only understands literal keys (no spread). Only their
  // validators are shared, from here.
  function validateTasks(v) {
    return this.taskMode !== 'pick' || (Array.isArray(v) && v.length > 0);
  }

  function validateTaskIds(v) {
    return this.taskMode !== 'ids' || /^\s*\d+(\s*,\s*\d+)*\s*$/.test(v || '');
  }

  /**
   * Wires the task choice of an edit dialog (call in oneditprepare): the mode select shows the
   * matching row, the picker is filled from the server's admin route and keeps the selection.
   * Returns `load`, which (re)fills the picker; call it when the dialog is ready.
   */
  function taskPicker(node, type) {
    var selected = (node.tasks || []).map(String);

    $('#node-input-taskMode').on('change', function () {
      var mode = $(this).val();
      $('.' + type + '-pick-row').toggle(mode === 'pick');
      $('.' + type + '-ids-row').toggle(mode === 'ids');
    });
    $('#node-input-taskMode')
      .val(node.taskMode || 'all')
      .trigger('change');

    function say(text) {
      $('#' + type + '-tasks-status').text(text || '');
    }

    function load() {
      var serverId = $('#node-input-server').val();
      if (!serverId || serverId === '_ADD_') {
        say(node._(type + '.editor.pickServer'));
        return;
      }
      var current = $('#node-input-tasks').val();
      if (current?.length) selected = current;
      say(node._(type + '.editor.loading'));
      $.getJSON(adminUrl(serverId, 'tasks'))
        .done((tasks) => {
          var select = $('#node-input-tasks').empty();
          tasks.forEach((task) => {
            var label = task.name + ' (#' + task.id + ')' + (task.status ? ' · ' + task.status : '');
            $('<option>').val(String(task.id)).text(label).appendTo(select);
          });
          select.val(selected);
          say(node._(type + '.editor.loaded', { count: tasks.length }));
        })
        .fail((xhr) => {
          var body = xhr.responseJSON;
          say(body?.error ? body.error : node._(type + '.editor.loadFailed'));
        });
    }

    $('#' + type + '-refresh').on('click', (event) => {
      event.preventDefault();
      load();
    });
    return { load: load };
  }

  /** Stores the picked tasks on the node (call in oneditsave). */
  function saveTasks(node) {
    var picked = $('#node-input-tasks').val();
    node.tasks = Array.isArray(picked) ? picked : [];
  }

  window.ObservationEditor = {
    adminUrl: adminUrl,
    validateTasks: validateTasks,
    validateTaskIds: validateTaskIds,
    taskPicker: taskPicker,
    saveTasks: saveTasks,
  };
})();
