; Python tags query — conventions in README.md next to this file.

; ---- definitions -------------------------------------------------------------
(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; Module-level names: UPPER_CASE ones are constants, the rest variables.
(module
  (assignment
    left: (identifier) @name
    (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.constant)

(module
  (assignment
    left: (identifier) @name
    (#not-match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.variable)

(module
  (type_alias_statement
    left: (type (identifier) @name)) @definition.type)

; Class attributes (`x = 1`, `x: int = 1`, dataclass fields).
(class_definition
  body: (block
    (assignment
      left: (identifier) @name) @definition.field))

; ---- references --------------------------------------------------------------
(call
  function: (identifier) @name) @reference.call

; `x.m()` / `module.f()`: the receiver decides what it can be a use of
; (codekeep/analysis/receivers.py).
(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

(decorator
  (identifier) @name) @reference.call

(decorator
  (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

(class_definition
  superclasses: (argument_list
    (identifier) @name)) @reference.class

(class_definition
  superclasses: (argument_list
    (attribute
      attribute: (identifier) @name))) @reference.class

(type
  (identifier) @name) @reference.type

(type
  (attribute
    attribute: (identifier) @name)) @reference.type

(generic_type
  (identifier) @name) @reference.type

; unions written with `|` (`request: Request | None`, `-> A | B | None`), nested up to
; three deep
(type (binary_operator (identifier) @name)) @reference.type
(type (binary_operator (binary_operator (identifier) @name))) @reference.type
(type (binary_operator (binary_operator (binary_operator (identifier) @name)))) @reference.type
(type (binary_operator (attribute attribute: (identifier) @name))) @reference.type
(type (binary_operator (binary_operator (attribute attribute: (identifier) @name))))
  @reference.type

; forward references written as strings: `def add(self, item: "Item")`
(type
  (string
    (string_content) @name
    (#match? @name "^[A-Za-z_][A-Za-z0-9_]*$"))) @reference.type

; A function or class used as a value: passed (`isinstance(x, Command)`,
; `cls=Command`), in a list or tuple, a subscript (`t.Optional[Command]`), assigned,
; returned, a default. Most such names are locals, so a `value` use counts only where the
; file's own definitions or imports lead to the symbol (codekeep/analysis/receivers.py).
(call arguments: (argument_list (identifier) @name)) @reference.value
(keyword_argument value: (identifier) @name) @reference.value
(list (identifier) @name) @reference.value
(tuple (identifier) @name) @reference.value
(set (identifier) @name) @reference.value
(pair value: (identifier) @name) @reference.value
(subscript subscript: (identifier) @name) @reference.value
(assignment right: (identifier) @name) @reference.value
(return_statement (identifier) @name) @reference.value
(default_parameter value: (identifier) @name) @reference.value
(typed_default_parameter value: (identifier) @name) @reference.value
; a class whose attribute is read or called (`ParserElement.enable_packrat()`,
; `signature(Meter.create_counter)`); capitalised names only: lower-case receivers are
; mostly locals, modules and `self`
(attribute
  object: (identifier) @name
  (#match? @name "^_*[A-Z]")) @reference.value
; ... and through its module (`pp.ParserElement.enable_packrat()`, `pp.Literal.using_each(...)`)
(attribute
  object: (attribute
    object: (_) @receiver
    attribute: (identifier) @name
    (#match? @name "^_*[A-Z]"))) @reference.value
; a class body's own name under a decorator (`@static_url_path.setter`, in the class
; whose property it is)
(decorator (attribute
  object: (identifier) @name
  attribute: (identifier) @_accessor
  (#any-of? @_accessor "setter" "getter" "deleter"))) @reference.value
; a method or function read, not called (`options["autoescape"] =
; self.select_jinja_autoescape`, `callback=helpers.get_root_path`): like a call, its
; receiver decides (codekeep/analysis/receivers.py); as a positional argument only a
; class (`pytest.raises(requests.exceptions.HTTPError)`): the rest are mostly a local's
; attributes, and each match costs the index
(call arguments: (argument_list
  (attribute object: (_) @receiver attribute: (identifier) @name
  (#match? @name "^_*[A-Z]")))) @reference.value
(keyword_argument value: (attribute object: (_) @receiver attribute: (identifier) @name))
  @reference.value
(assignment right: (attribute object: (_) @receiver attribute: (identifier) @name))
  @reference.value
(return_statement (attribute object: (_) @receiver attribute: (identifier) @name))
  @reference.value
(list (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.value
(tuple (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.value
(pair value: (attribute object: (_) @receiver attribute: (identifier) @name))
  @reference.value
; exceptions caught and raised (`except CookieConflictError:`, `except (A, m.B) as e:`,
; `raise X`)
(except_clause (identifier) @name) @reference.value
(except_clause (as_pattern (identifier) @name)) @reference.value
(except_clause (attribute object: (_) @receiver attribute: (identifier) @name))
  @reference.value
(except_clause (as_pattern (attribute object: (_) @receiver attribute: (identifier) @name)))
  @reference.value
(except_clause (as_pattern (tuple (identifier) @name))) @reference.value
(except_clause (as_pattern (tuple (attribute object: (_) @receiver attribute: (identifier) @name))))
  @reference.value
(raise_statement (identifier) @name) @reference.value
; chosen (`Keyword if as_keyword else Literal`); comparisons (`x is None`) are left
; out: nearly all of them compare locals, and each match costs the index
(conditional_expression (identifier) @name) @reference.value
; a name read alone as a statement (`requests.get` in an entry-point test)
(block (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.value

(import_from_statement
  name: (dotted_name
    (identifier) @name .)) @reference.import

(import_from_statement
  name: (aliased_import
    name: (dotted_name
      (identifier) @name .))) @reference.import

; ---- imports -----------------------------------------------------------------
(import_statement
  name: (dotted_name) @import.module) @import

(import_statement
  name: (aliased_import
    name: (dotted_name) @import.module
    alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.module
  name: (dotted_name) @import.name) @import

(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import
    name: (dotted_name) @import.name
    alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.module
  (wildcard_import) @import.name) @import
