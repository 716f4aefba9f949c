; JavaScript-only patterns (the shared ones are in _ecmascript.scm).
(class
  (class_heritage (identifier) @name)) @reference.class

(class_declaration
  (class_heritage (identifier) @name)) @reference.class

(class_declaration
  (class_heritage (member_expression property: (property_identifier) @name))) @reference.class

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.function

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name) @definition.field
