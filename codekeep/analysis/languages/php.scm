; PHP tags query for the CodeKeep code map (conventions: languages/README.md).
; Function and method bodies and closures are local scopes (php.json); a
; function declared inside `if (!function_exists(...)) { ... }` is still global.
; Namespaces are not symbols (`namespace A\B;` does not enclose the code).
; Constructor-promoted properties live in the constructor's parameter list: they are
; captured on the constructor's node, so they are its siblings (fields of the class)
; rather than locals of its body.

; ---------------------------------------------------------------- definitions

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(enum_case
  name: (name) @name) @definition.constant

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name) @definition.method

(const_declaration
  (const_element
    (name) @name)) @definition.constant

(property_declaration
  (property_element
    name: (variable_name (name) @name))) @definition.field

; `public function __construct(private Foo $foo)` declares the field `foo`
(method_declaration
  parameters: (formal_parameters
    (property_promotion_parameter
      name: (variable_name (name) @name)))) @definition.field

; ----------------------------------------------------------------- references

(function_call_expression
  function: [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.call

; `$x->m()`: the receiver decides what it can be a use of (receivers.py)
(member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

; `$this->count`, `$order?->total`: a field read or written
(member_access_expression
  object: (_) @receiver
  name: (name) @name) @reference.field

(nullsafe_member_access_expression
  object: (_) @receiver
  name: (name) @name) @reference.field

(scoped_call_expression
  name: (name) @name) @reference.call

(object_creation_expression [
  (name) @name
  (qualified_name (name) @name .)
]) @reference.new

(base_clause [
  (name) @name
  (qualified_name (name) @name .)
]) @reference.class

(class_interface_clause [
  (name) @name
  (qualified_name (name) @name .)
]) @reference.implementation

; `use LogsActivity;` inside a class mixes a trait in.
(use_declaration [
  (name) @name
  (qualified_name (name) @name .)
]) @reference.implementation

; Written types: parameters, returns, properties, catch, unions, nullables.
(named_type [
  (name) @name
  (qualified_name (name) @name .)
]) @reference.type

; Classes named in expressions: `Invoice::find()`, `Status::Paid`, `instanceof X`.
(scoped_call_expression
  scope: [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.type

(class_constant_access_expression
  .
  [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.type

(binary_expression
  operator: "instanceof"
  right: [
    (name) @name
    (qualified_name (name) @name .)
  ]) @reference.type

(attribute [
  (name) @name
  (qualified_name (name) @name .)
]) @reference.type

; -------------------------------------------------------------------- imports

; `use App\Models\Invoice;`, `use function App\Support\money_format as fmt;`
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name (name) @import.name .) @import.module
    alias: (name)? @import.alias)) @import

; `use App\Services\{PdfRenderer, Mailer as OutboundMailer};`
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause
      .
      (name) @import.name
      alias: (name)? @import.alias))) @import

(namespace_use_declaration
  [
    (namespace_use_clause (qualified_name (name) @name .))
    (namespace_use_group (namespace_use_clause . (name) @name))
  ]) @reference.import

; `require_once __DIR__ . '/lib/helpers.php';`, `include 'config.php';`
[
  (require_expression
    [
      (string (string_content) @import.module)
      (binary_expression right: (string (string_content) @import.module))
    ])
  (require_once_expression
    [
      (string (string_content) @import.module)
      (binary_expression right: (string (string_content) @import.module))
    ])
  (include_expression
    [
      (string (string_content) @import.module)
      (binary_expression right: (string (string_content) @import.module))
    ])
  (include_once_expression
    [
      (string (string_content) @import.module)
      (binary_expression right: (string (string_content) @import.module))
    ])
] @import
