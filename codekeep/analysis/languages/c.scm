; C tags query for the CodeKeep code map (conventions: languages/README.md).
; Function bodies (compound statements) are local scopes (c.json). Prototypes
; and `extern` declarations are declarations, not definitions: not indexed.

; ---------------------------------------------------------------- definitions

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

(preproc_def
  name: (identifier) @name) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

; `struct s {...};` and `enum e {...};` outside a typedef.
((struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct)

((union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct)

((enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum)

; `typedef struct {...} point_t;`: the anonymous body is point_t itself.
(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

; `typedef struct ring {...} ring_t;`: `ring` is the struct above, ring_t names
; it again. Only the name is the definition so the struct does not nest in it.
(type_definition
  type: [
    (struct_specifier name: (_) body: (_))
    (union_specifier name: (_) body: (_))
    (enum_specifier name: (_) body: (_))
  ]
  declarator: (type_identifier) @name @definition.type)

; Every other typedef: `typedef unsigned long seq_t;`, function pointers ...
(type_definition
  type: [
    (primitive_type) (sized_type_specifier) (type_identifier) (macro_type_specifier)
    (struct_specifier !body) (union_specifier !body) (enum_specifier !body)
  ]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

(enumerator
  name: (identifier) @name) @definition.constant

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

; `struct record *rec`, `enum level lvl`: a tag used without a body.
([
  (struct_specifier !body name: (type_identifier) @name)
  (union_specifier !body name: (type_identifier) @name)
  (enum_specifier !body name: (type_identifier) @name)
] @reference.type)

; -------------------------------------------------------------------- imports

(preproc_include
  path: [(string_literal) (system_lib_string)] @import.module) @import
