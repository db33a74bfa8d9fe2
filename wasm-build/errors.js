// Linked into every module flavour (--post-js): after the runtime starts, every Embind function,
// class function and method is wrapped so that
//   - an error a binding recorded (cpp/bindings/convert.hpp: `guarded` catches the C++
//     exception, records it and returns normally) is thrown here, in JS, as the TypeError,
//     RangeError or Error it names: the wasm call has already unwound, run its destructors and
//     restored its stack;
//   - a JS exception that still escapes from inside a call (a getter or valueOf that throws
//     while a binding reads an argument) restores the wasm stack pointer before it propagates,
//     so the module stays usable.
addOnPostRun(function () {
  var errorTypes = [Error, TypeError, RangeError];
  function wrap(f) {
    var wrapped = function () {
      var sp = stackSave();
      var result;
      Module['__attnlabError'] = null;
      try {
        result = f.apply(this, arguments);
      } catch (e) {
        stackRestore(sp);
        Module['__attnlabError'] = null;
        throw e;
      }
      var recorded = Module['__attnlabError'];
      if (recorded) {
        Module['__attnlabError'] = null;
        throw new (errorTypes[recorded.type] || Error)(recorded.message);
      }
      return result;
    };
    wrapped.argCount = f.argCount;
    return wrapped;
  }
  function wrapOwn(obj, skip) {
    Object.getOwnPropertyNames(obj).forEach(function (name) {
      if (skip.indexOf(name) >= 0) return;
      var d = Object.getOwnPropertyDescriptor(obj, name);
      if (d && typeof d.value === 'function' && d.writable) obj[name] = wrap(d.value);
    });
  }
  Object.keys(Module).forEach(function (name) {
    var f = Module[name];
    if (typeof f !== 'function') return;
    if (f.prototype && typeof f.prototype.isAliasOf === 'function') {
      wrapOwn(f, ['prototype', 'length', 'name', 'arguments', 'caller']);
      wrapOwn(f.prototype, ['constructor']);
    } else if (typeof f.argCount === 'number') {
      Module[name] = wrap(f);
    }
  });
});
