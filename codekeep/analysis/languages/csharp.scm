; C# tags query for the CodeKeep code map (conventions: languages/README.md).
; Method bodies (blocks, `=>` bodies) and lambdas are local scopes (csharp.json).
; Namespaces are not symbols: block-scoped and file-scoped namespaces would
; otherwise give the same class two different ids.

; ---------------------------------------------------------------- definitions

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

; Positional record parameters are its public properties.
(record_declaration
  (parameter_list
    (parameter
      name: (identifier) @name) @definition.field))

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_member_declaration
  name: (identifier) @name) @definition.constant

(delegate_declaration
  name: (identifier) @name) @definition.type

(method_declaration
  name: (identifier) @name) @definition.method

; Constructors and destructors are the methods named after their class.
(constructor_declaration
  name: (identifier) @name) @definition.method

(destructor_declaration
  name: (identifier) @name) @definition.method

(property_declaration
  name: (identifier) @name) @definition.field

(event_declaration
  name: (identifier) @name) @definition.field

(event_field_declaration
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.field

((field_declaration
  (modifier) @_modifier
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.constant
  (#eq? @_modifier "const"))

((field_declaration
  (modifier)* @_modifier
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.field
  (#not-eq? @_modifier "const"))

; ----------------------------------------------------------------- references

(invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
    (member_access_expression name: (identifier) @name)
    (member_access_expression name: (generic_name (identifier) @name))
    (conditional_access_expression (member_binding_expression name: (identifier) @name))
  ]) @reference.call

(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
    (alias_qualified_name name: (identifier) @name)
    (alias_qualified_name name: (generic_name (identifier) @name))
    (nullable_type type: (identifier) @name)
    (nullable_type type: (generic_name (identifier) @name))
    (nullable_type type: (qualified_name name: (identifier) @name))
  ]) @reference.new

; A base list mixes the base class and interfaces; by .NET naming, `IName`
; is an interface.
((base_list [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
    (alias_qualified_name name: (identifier) @name)
    (alias_qualified_name name: (generic_name (identifier) @name))
    (nullable_type type: (identifier) @name)
    (nullable_type type: (generic_name (identifier) @name))
    (nullable_type type: (qualified_name name: (identifier) @name))
  ]) @reference.implementation
  (#match? @name "^I[A-Z]"))

((base_list [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
    (alias_qualified_name name: (identifier) @name)
    (alias_qualified_name name: (generic_name (identifier) @name))
    (nullable_type type: (identifier) @name)
    (nullable_type type: (generic_name (identifier) @name))
    (nullable_type type: (qualified_name name: (identifier) @name))
  ]) @reference.class
  (#not-match? @name "^I[A-Z]"))

(attribute
  name: [
    (identifier) @name
    (qualified_name name: (identifier) @name)
  ]) @reference.type

; Every other written type. Of the `type:` holders only object creation
; (`new X(...)` / `new X[n]`) starts with `new`: it is the `new` reference above
; and the array creation below.
((_ type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
    (alias_qualified_name name: (identifier) @name)
    (alias_qualified_name name: (generic_name (identifier) @name))
    (nullable_type type: (identifier) @name)
    (nullable_type type: (generic_name (identifier) @name))
    (nullable_type type: (qualified_name name: (identifier) @name))
  ]) @reference.type @_holder
  (#not-match? @_holder "^new[^A-Za-z0-9_]"))

(array_creation_expression
  type: (array_type type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
    (alias_qualified_name name: (identifier) @name)
    (alias_qualified_name name: (generic_name (identifier) @name))
    (nullable_type type: (identifier) @name)
    (nullable_type type: (generic_name (identifier) @name))
    (nullable_type type: (qualified_name name: (identifier) @name))
  ])) @reference.type

(array_type
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
    (alias_qualified_name name: (identifier) @name)
    (alias_qualified_name name: (generic_name (identifier) @name))
    (nullable_type type: (identifier) @name)
    (nullable_type type: (generic_name (identifier) @name))
    (nullable_type type: (qualified_name name: (identifier) @name))
  ]) @reference.type

(method_declaration
  returns: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
    (alias_qualified_name name: (identifier) @name)
    (alias_qualified_name name: (generic_name (identifier) @name))
    (nullable_type type: (identifier) @name)
    (nullable_type type: (generic_name (identifier) @name))
    (nullable_type type: (qualified_name name: (identifier) @name))
  ]) @reference.type

(type_argument_list
  [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name name: (identifier) @name)
    (qualified_name name: (generic_name (identifier) @name))
    (alias_qualified_name name: (identifier) @name)
    (alias_qualified_name name: (generic_name (identifier) @name))
    (nullable_type type: (identifier) @name)
    (nullable_type type: (generic_name (identifier) @name))
    (nullable_type type: (qualified_name name: (identifier) @name))
  ]) @reference.type

; -------------------------------------------------------------------- imports

; `using A.B;` and `using static A.B.C;` bring in a whole namespace or type.
(using_directive
  !name
  [(identifier) (qualified_name)] @import.module) @import

; `using Clock = System.DateTimeOffset;`
(using_directive
  name: (identifier) @import.alias
  (qualified_name
    qualifier: (_) @import.module
    name: (identifier) @import.name)) @import

(using_directive
  name: (identifier) @import.alias
  (identifier) @import.module) @import

(using_directive
  name: (identifier)
  (qualified_name
    name: (identifier) @name)) @reference.import
