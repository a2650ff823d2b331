// Named JSON Schemas covering every construct schemaToTypeScript handles, the ones it refuses
// (rendered as `unknown` with a reason), hostile text, and real-world tool inputs. Each entry
// has one `.d.ts` file snapshot in `__snapshots__/`, named after it.

import type { JsonSchema } from "../../src/contract.js";

/** One corpus schema; `name` is kebab-case and names the snapshot file. */
export interface CorpusEntry {
  readonly name: string;
  readonly schema: JsonSchema;
}

function nestedObjects(levels: number): JsonSchema {
  let schema: JsonSchema = { type: "string", description: "The innermost value." };
  for (let level = levels; level > 0; level -= 1) {
    schema = { type: "object", properties: { [`level${level}`]: schema }, required: [`level${level}`] };
  }
  return schema;
}

/** The corpus, in snapshot order. */
export const corpus: readonly CorpusEntry[] = [
  { name: "primitive-string", schema: { type: "string" } },
  { name: "primitive-integer", schema: { type: "integer", description: "Integers are plain numbers in TypeScript." } },
  { name: "primitive-boolean-and-null", schema: { type: ["boolean", "null"] } },
  { name: "boolean-schema-true", schema: true },
  { name: "boolean-schema-false", schema: false },
  { name: "empty-schema", schema: {} },
  {
    name: "type-array-with-null",
    schema: {
      type: "object",
      properties: {
        nickname: { type: ["string", "null"] },
        score: { type: ["integer", "number", "null"] },
        tags: { type: ["array", "null"], items: { type: "string" } },
      },
      required: ["nickname"],
    },
  },
  {
    name: "openapi-nullable",
    schema: {
      type: "object",
      properties: {
        middleName: { type: "string", nullable: true },
        alreadyNull: { type: ["string", "null"], nullable: true },
        address: { type: "object", nullable: true, properties: { city: { type: "string" } } },
      },
    },
  },
  {
    name: "string-formats",
    schema: {
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        createdAt: { type: "string", format: "date-time", description: "When the record was created." },
        homepage: { type: "string", format: "uri" },
        id: { type: "string", format: "uuid" },
      },
      required: ["email", "id"],
    },
  },
  {
    name: "numeric-ranges",
    schema: {
      type: "object",
      properties: {
        percent: { type: "number", minimum: 0, maximum: 100 },
        positive: { type: "number", exclusiveMinimum: 0 },
        belowTen: { type: "integer", exclusiveMaximum: 10 },
        step: { type: "number", multipleOf: 0.5 },
      },
    },
  },
  {
    name: "string-lengths-and-pattern",
    schema: {
      type: "object",
      properties: {
        code: {
          type: "string",
          minLength: 3,
          maxLength: 3,
          pattern: "^[A-Z]{3}$",
          description: "ISO 4217 currency code.",
        },
        slug: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" },
      },
      required: ["code"],
    },
  },
  {
    name: "defaults-and-examples",
    schema: {
      type: "object",
      properties: {
        limit: { type: "integer", default: 20, minimum: 1, maximum: 100, examples: [10, 50] },
        sort: { type: "string", enum: ["asc", "desc"], default: "desc" },
        filter: { type: "object", default: { status: "open" }, additionalProperties: { type: "string" } },
      },
    },
  },
  {
    name: "deprecated-properties",
    schema: {
      type: "object",
      properties: {
        query: { type: "string" },
        q: { type: "string", deprecated: true, description: "Use `query` instead." },
        legacyMode: { type: "boolean", deprecated: true },
      },
    },
  },
  {
    name: "descriptions-at-every-level",
    schema: {
      title: "Shipment",
      description: "A shipment of one or more parcels.",
      type: "object",
      properties: {
        parcels: {
          description: "Parcels, in loading order.",
          type: "array",
          items: {
            description: "One parcel.",
            type: "object",
            properties: {
              weightKg: { type: "number", description: "Weight in kilograms." },
              dimensions: {
                description: "Outer dimensions in centimetres.",
                type: "object",
                properties: {
                  length: { type: "number", description: "Longest side." },
                  width: { type: "number" },
                  height: { type: "number" },
                },
                required: ["length", "width", "height"],
              },
            },
            required: ["weightKg"],
          },
        },
        carrier: {
          description: "Who carries it.",
          oneOf: [
            { type: "string", description: "A carrier code such as `ups`." },
            { type: "object", description: "A custom carrier.", properties: { name: { type: "string" } } },
          ],
        },
      },
      required: ["parcels"],
    },
  },
  { name: "string-enum", schema: { type: "string", enum: ["open", "closed", "all"], description: "Issue state." } },
  { name: "mixed-enum", schema: { enum: ["a", 1, -1, 2.5, true, null, { kind: "x" }, [1, "two"]] } },
  {
    name: "const-values",
    schema: {
      type: "object",
      properties: {
        kind: { const: "refund" },
        version: { const: 2 },
        negative: { type: "array", items: { const: -1 } },
      },
      required: ["kind", "version"],
    },
  },
  {
    name: "object-required-optional",
    schema: {
      type: "object",
      properties: { id: { type: "string" }, name: { type: "string" }, age: { type: "integer" } },
      required: ["id", "undescribed"],
    },
  },
  {
    name: "closed-object",
    schema: {
      type: "object",
      properties: { x: { type: "number" }, y: { type: "number" } },
      required: ["x", "y"],
      additionalProperties: false,
    },
  },
  {
    name: "typed-additional-properties",
    schema: {
      type: "object",
      description: "Environment variables by name.",
      additionalProperties: { type: "string", description: "The variable's value." },
    },
  },
  {
    name: "properties-with-additional-schema",
    schema: {
      type: "object",
      properties: { id: { type: "string" }, count: { type: "integer" } },
      required: ["id"],
      additionalProperties: { type: "boolean" },
    },
  },
  {
    name: "required-without-property",
    schema: { type: "object", required: ["token"], additionalProperties: { type: "string" } },
  },
  {
    name: "properties-with-additional-true",
    schema: { type: "object", properties: { id: { type: "string" } }, additionalProperties: true },
  },
  {
    name: "pattern-properties",
    schema: {
      type: "object",
      properties: { name: { type: "string" } },
      patternProperties: {
        "^x-": { type: "string", description: "Vendor extension." },
        "^[0-9]+$": { type: "number" },
      },
      additionalProperties: false,
    },
  },
  { name: "open-object-without-properties", schema: { type: "object", description: "Arbitrary metadata." } },
  { name: "empty-closed-object", schema: { type: "object", properties: {}, additionalProperties: false } },
  {
    name: "non-identifier-property-names",
    schema: {
      type: "object",
      properties: {
        "content-type": { type: "string" },
        "2fa": { type: "boolean" },
        "with space": { type: "string" },
        $ref_like: { type: "string" },
        default: { type: "string", description: "Reserved words are valid property names." },
        "": { type: "string", description: "The empty key." },
        日本語: { type: "number" },
        'quote"and\\backslash': { type: "string" },
      },
      required: ["content-type"],
    },
  },
  {
    name: "array-of-objects",
    schema: {
      type: "array",
      items: { type: "object", properties: { id: { type: "string" }, qty: { type: "integer" } }, required: ["id"] },
      minItems: 1,
      uniqueItems: true,
    },
  },
  {
    name: "array-of-unions",
    schema: {
      type: "object",
      properties: {
        values: { type: "array", items: { type: ["string", "number"] } },
        choices: { type: "array", items: { enum: ["a", "b"] } },
        anything: { type: "array" },
        nothing: { type: "array", items: false },
      },
    },
  },
  {
    name: "nested-arrays",
    schema: { type: "array", description: "A matrix.", items: { type: "array", items: { type: "number" } } },
  },
  {
    name: "prefix-items-closed-tuple",
    schema: {
      type: "array",
      description: "A [longitude, latitude] pair.",
      prefixItems: [
        { type: "number", description: "Longitude in degrees.", minimum: -180, maximum: 180 },
        { type: "number", description: "Latitude in degrees.", minimum: -90, maximum: 90 },
      ],
      items: false,
      minItems: 2,
    },
  },
  {
    name: "prefix-items-with-rest",
    schema: {
      type: "array",
      prefixItems: [{ type: "string" }, { type: "integer" }],
      items: { type: ["boolean", "null"] },
    },
  },
  {
    name: "draft07-tuple-items",
    schema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      items: [{ type: "string" }, { type: "object", properties: { ok: { type: "boolean" } } }],
      additionalItems: false,
    },
  },
  {
    name: "draft07-tuple-open",
    schema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      items: [{ type: "string" }, { type: "number" }],
    },
  },
  {
    name: "one-of-discriminated-union",
    schema: {
      description: "A payment method.",
      oneOf: [
        {
          title: "Card",
          type: "object",
          properties: { type: { const: "card" }, last4: { type: "string", pattern: "^[0-9]{4}$" } },
          required: ["type", "last4"],
        },
        {
          title: "Bank transfer",
          type: "object",
          properties: { type: { const: "bank" }, iban: { type: "string" } },
          required: ["type", "iban"],
        },
      ],
    },
  },
  {
    name: "any-of-primitives",
    schema: {
      type: "object",
      properties: {
        id: { anyOf: [{ type: "string" }, { type: "integer" }], description: "A numeric or string id." },
        when: { anyOf: [{ type: "string", format: "date" }, { type: "null" }] },
      },
    },
  },
  {
    name: "all-of-intersection",
    schema: {
      allOf: [
        { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        { type: "object", properties: { createdAt: { type: "string", format: "date-time" } } },
        {
          anyOf: [
            { type: "object", properties: { a: { type: "string" } } },
            { type: "object", properties: { b: { type: "number" } } },
          ],
        },
      ],
    },
  },
  {
    name: "object-with-one-of-required",
    schema: {
      type: "object",
      description: "Look up a user by exactly one of its keys.",
      properties: { email: { type: "string", format: "email" }, userId: { type: "string" } },
      oneOf: [{ required: ["email"] }, { required: ["userId"] }],
    },
  },
  {
    name: "recursive-tree",
    schema: {
      $defs: {
        node: {
          type: "object",
          description: "A tree node.",
          properties: {
            label: { type: "string" },
            children: { type: "array", items: { $ref: "#/$defs/node" } },
          },
          required: ["label"],
        },
      },
      type: "object",
      properties: { root: { $ref: "#/$defs/node" } },
      required: ["root"],
    },
  },
  {
    name: "linked-list",
    schema: {
      $defs: {
        listNode: {
          type: "object",
          properties: {
            value: { type: "integer" },
            next: { anyOf: [{ $ref: "#/$defs/listNode" }, { type: "null" }], description: "Null at the end." },
          },
          required: ["value", "next"],
        },
      },
      $ref: "#/$defs/listNode",
    },
  },
  {
    name: "draft07-definitions",
    schema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      definitions: {
        address: {
          type: "object",
          properties: { street: { type: "string" }, postal_code: { type: "string" } },
          required: ["street"],
        },
      },
      type: "object",
      properties: {
        billing: { $ref: "#/definitions/address" },
        shipping: { $ref: "#/definitions/address", description: "Defaults to the billing address." },
      },
      required: ["billing"],
    },
  },
  {
    name: "mutual-recursion",
    schema: {
      $defs: {
        folder: {
          type: "object",
          properties: { name: { type: "string" }, entries: { type: "array", items: { $ref: "#/$defs/entry" } } },
          required: ["name", "entries"],
        },
        entry: {
          oneOf: [
            { $ref: "#/$defs/folder" },
            { type: "object", properties: { file: { type: "string" } }, required: ["file"] },
          ],
        },
      },
      $ref: "#/$defs/folder",
    },
  },
  {
    name: "self-alias-cycle",
    schema: {
      $defs: {
        loop: { anyOf: [{ $ref: "#/$defs/loop" }, { type: "null" }] },
        ping: { $ref: "#/$defs/pong" },
        pong: { anyOf: [{ $ref: "#/$defs/ping" }, { type: "string" }] },
      },
      type: "object",
      properties: { loop: { $ref: "#/$defs/loop" }, ping: { $ref: "#/$defs/ping" } },
    },
  },
  {
    name: "root-self-reference",
    schema: {
      description: "A JSON-like value.",
      anyOf: [
        { type: ["string", "number", "boolean", "null"] },
        { type: "array", items: { $ref: "#" } },
        { type: "object", additionalProperties: { $ref: "#" } },
      ],
    },
  },
  {
    name: "shared-defs-reused",
    schema: {
      $defs: {
        money: {
          type: "object",
          properties: { amount: { type: "integer" }, currency: { type: "string" } },
          required: ["amount", "currency"],
        },
      },
      type: "object",
      properties: {
        subtotal: { $ref: "#/$defs/money" },
        tax: { $ref: "#/$defs/money" },
        lines: { type: "array", items: { type: "object", properties: { price: { $ref: "#/$defs/money" } } } },
      },
    },
  },
  {
    name: "not-keyword",
    schema: {
      type: "object",
      properties: {
        anythingButNull: { not: { type: "null" } },
        notEmpty: { type: "string", not: { const: "" } },
      },
    },
  },
  {
    name: "if-then-else",
    schema: {
      type: "object",
      properties: {
        conditional: {
          if: { properties: { kind: { const: "a" } } },
          then: { required: ["a"] },
          else: { required: ["b"] },
        },
      },
    },
  },
  {
    name: "unresolvable-refs",
    schema: {
      type: "object",
      properties: {
        external: { $ref: "https://example.com/schemas/address.json" },
        missing: { $ref: "#/$defs/doesNotExist" },
        prototypeKey: { $ref: "#/$defs/constructor" },
        badEscape: { $ref: "#/%E0%A4%A" },
        nonPointer: { $ref: "#anchor" },
      },
    },
  },
  {
    name: "unknown-type-keyword",
    schema: { type: "object", properties: { upload: { type: "file" }, weird: { type: 42 } } },
  },
  {
    name: "hostile-descriptions",
    schema: {
      description: "Ends the comment early */ declare const pwned: number; /* and more",
      type: "object",
      properties: {
        note: {
          type: "string",
          description:
            "Backticks `rm -rf /`, ${template}, */ again,\nnew line\r\nwindows line\u2028line separator, emoji 🚀, RTL \u202e text, NUL \u0000.",
          default: "*/ pwned /*",
          examples: ["a */ b", "`code`"],
          pattern: "^/*/$",
        },
        "*/": { type: "string", description: "/** nested opener */" },
        value: { const: "*/ not a comment \u2028" },
      },
    },
  },
  { name: "deep-nesting-capped", schema: nestedObjects(80) },
  {
    name: "github-create-issue",
    schema: {
      type: "object",
      description: "Create a new issue in a GitHub repository.",
      properties: {
        owner: { type: "string", description: "Repository owner (user or organization)." },
        repo: { type: "string", description: "Repository name." },
        title: { type: "string", description: "Issue title.", minLength: 1 },
        body: { type: "string", description: "Issue body in GitHub-flavoured Markdown." },
        assignees: { type: "array", items: { type: "string" }, description: "Logins to assign." },
        labels: { type: "array", items: { type: "string" }, description: "Label names." },
        milestone: { type: ["integer", "null"], description: "Milestone number." },
        type: { type: ["string", "null"], description: "Issue type name, if the organization uses issue types." },
      },
      required: ["owner", "repo", "title"],
      additionalProperties: false,
    },
  },
  {
    name: "stripe-list-charges",
    schema: {
      type: "object",
      description: "List charges, newest first, with cursor pagination.",
      properties: {
        customer: { type: "string", description: "Only charges of this customer ID.", pattern: "^cus_" },
        created: {
          description: "Filter on creation time: a Unix timestamp or a range.",
          anyOf: [
            { type: "integer" },
            {
              type: "object",
              properties: {
                gt: { type: "integer" },
                gte: { type: "integer" },
                lt: { type: "integer" },
                lte: { type: "integer" },
              },
              additionalProperties: false,
            },
          ],
        },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 10, description: "Page size." },
        starting_after: { type: "string", description: "Cursor: the ID of the last charge of the previous page." },
        ending_before: { type: "string", description: "Cursor for the page before this ID." },
        expand: { type: "array", items: { type: "string", maxLength: 5000 } },
      },
      additionalProperties: false,
    },
  },
  {
    name: "calendar-create-event",
    schema: {
      $defs: {
        eventTime: {
          type: "object",
          description: "A timed or an all-day boundary.",
          properties: {
            dateTime: { type: "string", format: "date-time" },
            date: { type: "string", format: "date", description: "For all-day events." },
            timeZone: { type: "string", examples: ["Europe/Paris"] },
          },
        },
      },
      type: "object",
      properties: {
        calendarId: { type: "string", default: "primary" },
        summary: { type: "string", maxLength: 1024 },
        start: { $ref: "#/$defs/eventTime" },
        end: { $ref: "#/$defs/eventTime" },
        attendees: {
          type: "array",
          items: {
            type: "object",
            properties: {
              email: { type: "string", format: "email" },
              optional: { type: "boolean", default: false },
              responseStatus: { enum: ["needsAction", "declined", "tentative", "accepted"] },
            },
            required: ["email"],
          },
        },
        recurrence: { type: "array", items: { type: "string", pattern: "^(RRULE|EXRULE|RDATE|EXDATE):" } },
        reminders: {
          type: "object",
          properties: {
            useDefault: { type: "boolean" },
            overrides: {
              type: "array",
              maxItems: 5,
              items: {
                type: "object",
                properties: {
                  method: { enum: ["email", "popup"] },
                  minutes: { type: "integer", minimum: 0, maximum: 40320 },
                },
                required: ["method", "minutes"],
              },
            },
          },
        },
        visibility: { type: "string", enum: ["default", "public", "private"], default: "default" },
      },
      required: ["summary", "start", "end"],
    },
  },
  {
    name: "filesystem-edit-file",
    schema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        path: { type: "string", description: "File to edit, inside an allowed directory." },
        edits: {
          type: "array",
          description: "Edits applied in order; each must match exactly once.",
          items: {
            type: "object",
            properties: {
              oldText: { type: "string", description: "Text to search for - must match exactly" },
              newText: { type: "string", description: "Text to replace with" },
            },
            required: ["oldText", "newText"],
            additionalProperties: false,
          },
        },
        dryRun: { type: "boolean", default: false, description: "Preview changes using git-style diff format" },
      },
      required: ["path", "edits"],
      additionalProperties: false,
    },
  },
  {
    name: "hostile-keyword-values",
    schema: {
      type: "object",
      properties: "not an object",
      required: [1, null, "kept"],
      allOf: "nope",
      anyOf: [],
      enum: "not an array",
      additionalProperties: 5,
    } as unknown as JsonSchema,
  },
];
