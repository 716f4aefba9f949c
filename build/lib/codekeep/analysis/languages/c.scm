; C tags query for the CodeKeep code map (conventions: languages/README.md).
; Function bodies (compound statements) are local scopes (c.json). Prototypes
; and `extern` declarations are declarations, not definitions: not indexed.
; Macros, tags, enumerators, typedefs and includes: _c_family.scm.

; ---------------------------------------------------------------- definitions

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

; `typedef _Atomic(long) counter_t;` (macro type specifiers are C-only).
(type_definition
  type: (macro_type_specifier)
  declarator: (type_identifier) @name) @definition.type

(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ]) @definition.field

; File-scope variables; `const` ones are constants (for one node and name the
; earliest pattern wins). `extern` declarations are not definitions.
((declaration
  (storage_class_specifier)* @_storage
  (type_qualifier) @_qualifier
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    ])
  ]) @definition.constant
  (#not-eq? @_storage "extern")
  (#eq? @_qualifier "const"))

((declaration
  (storage_class_specifier)* @_storage
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    ])
  ]) @definition.variable
  (#not-eq? @_storage "extern"))

; ----------------------------------------------------------------- references

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (parenthesized_expression (pointer_expression argument: (identifier) @name))
  ]) @reference.call

; Declarations, parameters, fields, return types, casts, sizeof ...
(_
  type: (type_identifier) @name) @reference.type
