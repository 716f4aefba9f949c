; Java tags query for the CodeKeep code map (conventions: languages/README.md).
; Method and constructor bodies, lambdas and anonymous classes are local scopes
; (java.json): nothing declared inside them is indexed.

; ---------------------------------------------------------------- definitions

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

; Record components are its fields (and accessor methods).
(record_declaration
  parameters: (formal_parameters
    (formal_parameter
      name: (identifier) @name) @definition.field))

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_constant
  name: (identifier) @name) @definition.constant

(method_declaration
  name: (identifier) @name) @definition.method

(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

; A constructor is the method named after its class: `Line.Line`.
(constructor_declaration
  name: (identifier) @name) @definition.method

(compact_constructor_declaration
  name: (identifier) @name) @definition.method

; Fields: UPPER_CASE names are constants by Java convention, the rest fields.
(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name)
  (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant

(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name)
  (#not-match? @name "^[A-Z][A-Z0-9_]*$")) @definition.field

; Interface fields are implicitly static final.
(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant

; ----------------------------------------------------------------- references

(method_invocation
  name: (identifier) @name) @reference.call

; `Order::total`, `this::process`
(method_reference
  (identifier) @name .) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.new

(superclass [
  (type_identifier) @name
  (scoped_type_identifier (type_identifier) @name .)
  (generic_type [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
  ])
]) @reference.class

([
  (super_interfaces (type_list [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]))
  (extends_interfaces (type_list [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]))
] @reference.implementation)

(marker_annotation
  name: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ]) @reference.type

(annotation
  name: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ]) @reference.type

; Every other written type. `var` is inference, not a type.
; Declarations, parameters, return types and casts hold theirs in `type:`;
; of those holders only `new X(...)` / `new X[n]` start with `new`, and they
; are the `new` reference above and the array creation below.
((_ type: [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type @_holder
  (#not-match? @_holder "^([A-Za-z0-9_$.]+[.])?\\s*new[^A-Za-z0-9_$]")
  (#not-eq? @name "var"))

((array_creation_expression type: [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((array_type element: [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((type_arguments [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((wildcard [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((throws [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((type_bound [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((catch_type [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((spread_parameter [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((type_pattern [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((record_pattern_component [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((instanceof_expression right: [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

((class_literal [
    (type_identifier) @name
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type [
      (type_identifier) @name
      (scoped_type_identifier (type_identifier) @name .)
    ])
  ]) @reference.type
  (#not-eq? @name "var"))

; -------------------------------------------------------------------- imports

; `import a.b.C;` and `import static a.b.C.member;` bring in one name each.
(import_declaration
  (scoped_identifier
    name: (identifier) @name) .) @reference.import

(import_declaration
  (scoped_identifier
    scope: (_) @import.module
    name: (identifier) @import.name) .) @import

; `import a.b.*;` brings in every public name of a.b.
(import_declaration
  (scoped_identifier) @import.module
  (asterisk) @import.name) @import
