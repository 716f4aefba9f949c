; Patterns shared by JavaScript, TypeScript and TSX (node types common to all three
; grammars). Conventions: README.md in this folder.

; ---- definitions (specific patterns first: the earliest pattern wins per node) ----
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (_) @name) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

; `const f = () => {}` / `function () {}` at module level (exported or not) is a function.
(program
  [(lexical_declaration (variable_declarator
     name: (identifier) @name
     value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)
   (variable_declaration (variable_declarator
     name: (identifier) @name
     value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)])

(program
  (export_statement
    declaration: (lexical_declaration (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))

; Other module-level bindings: UPPER_CASE constants, the rest variables.
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)
   (variable_declaration (variable_declarator name: (identifier) @name) @definition.constant)
   (export_statement declaration: (lexical_declaration
     (variable_declarator name: (identifier) @name) @definition.constant))]
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
   (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)
   (export_statement declaration: (lexical_declaration
     (variable_declarator name: (identifier) @name) @definition.variable))])

; ---- references ----------------------------------------------------------------------
(call_expression
  function: (identifier) @name) @reference.call

; `x.m()` / `ns.f()`: the receiver decides what it can be a use of
; (codekeep/analysis/receivers.py).
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call

(new_expression
  constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

(import_specifier
  name: (identifier) @name) @reference.import

; A class used as a value: `x instanceof Observable`
(binary_expression
  operator: "instanceof"
  right: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]) @reference.type

; A function or class used as a value: passed (`joinAllInternals(zip, p)`), put in an
; array or object, assigned (`export const exhaust = exhaustAll`), returned, compared,
; used as a key (`obj[Symbol_observable]`, `[Symbol_observable]() {}`). Most such names
; are locals, so a `value` use counts only where the file's own definitions or imports
; lead to the symbol (codekeep/analysis/receivers.py).
(call_expression arguments: (arguments (identifier) @name)) @reference.value
(new_expression arguments: (arguments (identifier) @name)) @reference.value
(array (identifier) @name) @reference.value
(pair value: (identifier) @name) @reference.value
((shorthand_property_identifier) @name @reference.value)
(spread_element (identifier) @name) @reference.value
(variable_declarator value: (identifier) @name) @reference.value
(assignment_expression right: (identifier) @name) @reference.value
(return_statement (identifier) @name) @reference.value
(arrow_function body: (identifier) @name) @reference.value
(binary_expression left: (identifier) @name) @reference.value
(binary_expression right: (identifier) @name) @reference.value
(ternary_expression consequence: (identifier) @name) @reference.value
(ternary_expression alternative: (identifier) @name) @reference.value
(subscript_expression index: (identifier) @name) @reference.value
(computed_property_name (identifier) @name) @reference.value
(export_statement value: (identifier) @name) @reference.value
(assignment_pattern right: (identifier) @name) @reference.value

; decorators: `@Injectable()` is a call (above), `@sealed` and `@ns.sealed` too
(decorator (identifier) @name) @reference.call

(decorator
  (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; a documentation comment's `{@link X}`, `@see X`, `@param {X}` (doclinks.py)
((comment) @doc
  (#match? @doc "^/[*][*]"))

; `export { x } from './x'` and `export { x }`: the exported symbol is used there
(export_specifier
  name: (identifier) @name) @reference.import

; ---- imports -------------------------------------------------------------------------
(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (identifier) @import.name
        alias: (identifier) @import.alias)))
  source: (string (string_fragment) @import.module)) @import

(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (identifier) @import.name
        !alias)))
  source: (string (string_fragment) @import.module)) @import

; default and namespace imports bring in the whole module
(import_statement
  (import_clause [(identifier) (namespace_import (identifier)? @import.alias)])
  source: (string (string_fragment) @import.module)) @import

; `export { x, y as z } from './m'` re-exports those names; `export * from` (and
; `export * as ns from`) the whole module
(export_statement
  (export_clause
    (export_specifier name: (identifier) @import.name))
  source: (string (string_fragment) @import.module)) @import

(export_statement
  !declaration
  .
  source: (string (string_fragment) @import.module)) @import

(export_statement
  (namespace_export)
  source: (string (string_fragment) @import.module)) @import

(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @import.module))
  (#eq? @_require "require")) @import
