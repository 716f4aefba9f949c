; Patterns shared by C and C++ (c.json and cpp.json list this fragment after
; their own file). Only what both grammars spell the same way lives here.

; ---------------------------------------------------------------- definitions

(preproc_def
  name: (identifier) @name) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

; `struct s {...};`, `union u {...};`, `enum e {...};` outside a typedef.
(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

(enumerator
  name: (identifier) @name) @definition.constant

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
    (primitive_type) (sized_type_specifier) (type_identifier)
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

; ----------------------------------------------------------------- references

; `struct record *rec`, `enum level lvl`: a tag used without a body.
([
  (struct_specifier !body name: (type_identifier) @name)
  (union_specifier !body name: (type_identifier) @name)
  (enum_specifier !body name: (type_identifier) @name)
] @reference.type)

; -------------------------------------------------------------------- imports

(preproc_include
  path: [(string_literal) (system_lib_string)] @import.module) @import
