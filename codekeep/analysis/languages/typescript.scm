; TypeScript/TSX-only patterns (the shared ones are in _ecmascript.scm).

; ---- definitions -------------------------------------------------------------------
(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.namespace

(module
  name: [(string) (identifier) (nested_identifier)] @name) @definition.module

(function_signature
  name: (identifier) @name) @definition.function

(abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(interface_body
  (method_signature
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.function

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.field

(interface_body
  (property_signature
    name: [(property_identifier) (private_property_identifier)] @name) @definition.field)

; ---- references ---------------------------------------------------------------------
; `typeof Observable` in a type
(type_query
  (identifier) @name) @reference.type

(class_heritage
  (extends_clause
    value: (identifier) @name)) @reference.class

(class_heritage
  (extends_clause
    value: (member_expression property: (property_identifier) @name))) @reference.class

(implements_clause
  (type_identifier) @name) @reference.implementation

(extends_type_clause
  type: (type_identifier) @name) @reference.class

(type_annotation
  (type_identifier) @name) @reference.type

(generic_type
  name: (type_identifier) @name) @reference.type

(type_arguments
  (type_identifier) @name) @reference.type

(array_type
  (type_identifier) @name) @reference.type

(union_type
  (type_identifier) @name) @reference.type

(intersection_type
  (type_identifier) @name) @reference.type

(type_alias_declaration
  value: (type_identifier) @name) @reference.type

(nested_type_identifier
  name: (type_identifier) @name) @reference.type

; a default parameter or a field's initial value naming a function or class
(required_parameter value: (identifier) @name) @reference.value
(optional_parameter value: (identifier) @name) @reference.value
(public_field_definition value: (identifier) @name) @reference.value

; `RepeatConfig['delay']`, `[A, B]`, `readonly A[]`, `A?`, `...A`, `keyof A`, `(A)`,
; `() => A`, `A extends B ? C : D`, `T extends A`, `T = A`, `x is A`
(lookup_type (type_identifier) @name) @reference.type
(tuple_type (type_identifier) @name) @reference.type
(readonly_type (type_identifier) @name) @reference.type
(optional_type (type_identifier) @name) @reference.type
(rest_type (type_identifier) @name) @reference.type
(index_type_query (type_identifier) @name) @reference.type
(parenthesized_type (type_identifier) @name) @reference.type
(function_type return_type: (type_identifier) @name) @reference.type
(conditional_type (type_identifier) @name) @reference.type
(constraint (type_identifier) @name) @reference.type
(default_type (type_identifier) @name) @reference.type
(type_predicate type: (type_identifier) @name) @reference.type
(as_expression (type_identifier) @name) @reference.type
(satisfies_expression (type_identifier) @name) @reference.type
