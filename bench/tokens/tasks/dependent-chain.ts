// Control: a strict chain of five dependent calls (person -> manager -> manager's record ->
// office -> building), each small. Nothing can be grouped and little data flows, so direct
// calling pays only for five short turns; a program saves the turns, not much else.

import { ToolError } from "../../../src/errors.js";
import { defineTool } from "../../../src/registry/define-tool.js";
import { defineTask, mentionsPhrase, singleStringInput, type DirectSession } from "../task.js";

const EMAIL = "dana.kim@example.com";

const PEOPLE = [
  {
    personId: "per_0193",
    name: "Dana Kim",
    email: EMAIL,
    title: "Site Reliability Engineer",
    officeId: "off_ams_2",
    managerId: "per_0077",
  },
  {
    personId: "per_0077",
    name: "Rafael Ortega",
    email: "rafael.ortega@example.com",
    title: "Engineering Manager",
    officeId: "off_lis_1",
    managerId: "per_0012",
  },
  {
    personId: "per_0012",
    name: "Mira Sato",
    email: "mira.sato@example.com",
    title: "Director of Engineering",
    officeId: "off_ams_2",
    managerId: null,
  },
];
const OFFICES = [
  { officeId: "off_ams_2", city: "Amsterdam", floor: 4, buildingId: "bld_ams_zuidas" },
  { officeId: "off_lis_1", city: "Lisbon", floor: 2, buildingId: "bld_lis_parque" },
];
const BUILDINGS = [
  {
    buildingId: "bld_ams_zuidas",
    address: "Gustav Mahlerlaan 310, 1082 ME Amsterdam",
    receptionPhone: "+31 20 555 0142",
    timezone: "Europe/Amsterdam",
  },
  {
    buildingId: "bld_lis_parque",
    address: "Avenida D. João II 44, 1990-095 Lisboa",
    receptionPhone: "+351 21 555 0187",
    timezone: "Europe/Lisbon",
  },
];

export interface ChainAnswer {
  readonly managerName: string;
  readonly receptionPhone: string;
}

const idInput = (name: string, example: string) => singleStringInput(name, `e.g. "${example}".`);

export const dependentChain = defineTask<ChainAnswer>({
  id: "dependent-chain",
  title: "Dependent chain (control)",
  question: `What is the reception phone number of the building where ${EMAIL}'s manager works? Tell me the manager's name too.`,
  control: true,
  note: "5 calls, each needing the previous result",
  createWorld() {
    const find = <T>(list: readonly T[], key: keyof T, value: unknown, what: string): T => {
      const found = list.find((item) => item[key] === value);
      if (found === undefined) throw new ToolError(`No ${what} "${String(value)}".`, { code: "NOT_FOUND" });
      return found;
    };
    const person = (record: (typeof PEOPLE)[number]) => ({
      personId: record.personId,
      name: record.name,
      email: record.email,
      title: record.title,
      officeId: record.officeId,
    });
    const tools = [
      defineTool({
        name: "directory.findPerson",
        description:
          "Find a person in the company directory by email address. Returns their person id, name and job title.",
        inputSchema: idInput("email", EMAIL),
        outputSchema: {
          type: "object",
          properties: { personId: { type: "string" }, name: { type: "string" }, title: { type: "string" } },
          required: ["personId", "name", "title"],
        },
        effect: "read",
        execute: ({ email }: { email: string }) => {
          const record = find(PEOPLE, "email", email, "person with email");
          return { personId: record.personId, name: record.name, title: record.title };
        },
      }),
      defineTool({
        name: "directory.getManager",
        description: "Get the person id of someone's direct manager; null for the top of the hierarchy.",
        inputSchema: idInput("personId", "per_0193"),
        outputSchema: {
          type: "object",
          properties: { personId: { type: "string" }, managerId: { type: ["string", "null"] } },
          required: ["personId", "managerId"],
        },
        effect: "read",
        execute: ({ personId }: { personId: string }) => ({
          personId,
          managerId: find(PEOPLE, "personId", personId, "person").managerId,
        }),
      }),
      defineTool({
        name: "directory.getPerson",
        description:
          "Get a person's directory record by person id: name, email, job title and the office they work from.",
        inputSchema: idInput("personId", "per_0193"),
        outputSchema: {
          type: "object",
          properties: {
            personId: { type: "string" },
            name: { type: "string" },
            email: { type: "string" },
            title: { type: "string" },
            officeId: { type: "string" },
          },
          required: ["personId", "name", "email", "title", "officeId"],
        },
        effect: "read",
        execute: ({ personId }: { personId: string }) => person(find(PEOPLE, "personId", personId, "person")),
      }),
      defineTool({
        name: "facilities.getOffice",
        description: "Get an office by id: its city, floor and the building it is in.",
        inputSchema: idInput("officeId", "off_ams_2"),
        outputSchema: {
          type: "object",
          properties: {
            officeId: { type: "string" },
            city: { type: "string" },
            floor: { type: "integer" },
            buildingId: { type: "string" },
          },
          required: ["officeId", "city", "floor", "buildingId"],
        },
        effect: "read",
        execute: ({ officeId }: { officeId: string }) => find(OFFICES, "officeId", officeId, "office"),
      }),
      defineTool({
        name: "facilities.getBuilding",
        description: "Get a building by id: street address, reception phone number and time zone.",
        inputSchema: idInput("buildingId", "bld_ams_zuidas"),
        outputSchema: {
          type: "object",
          properties: {
            buildingId: { type: "string" },
            address: { type: "string" },
            receptionPhone: { type: "string" },
            timezone: { type: "string" },
          },
          required: ["buildingId", "address", "receptionPhone", "timezone"],
        },
        effect: "read",
        execute: ({ buildingId }: { buildingId: string }) => find(BUILDINGS, "buildingId", buildingId, "building"),
      }),
    ];
    return {
      tools,
      truth: { managerName: "Rafael Ortega", receptionPhone: "+351 21 555 0187" },
      async solveDirect(session: DirectSession) {
        const [found] = await session.call([{ tool: "directory.findPerson", input: { email: EMAIL } }]);
        const [manager] = await session.call([
          { tool: "directory.getManager", input: { personId: found!.value.personId } },
        ]);
        const [record] = await session.call([
          { tool: "directory.getPerson", input: { personId: manager!.value.managerId } },
        ]);
        const [office] = await session.call([
          { tool: "facilities.getOffice", input: { officeId: record!.value.officeId } },
        ]);
        const [building] = await session.call([
          { tool: "facilities.getBuilding", input: { buildingId: office!.value.buildingId } },
        ]);
        return { managerName: record!.value.name, receptionPhone: building!.value.receptionPhone };
      },
      checkAnswer(text) {
        const problems: string[] = [];
        if (!mentionsPhrase(text, "Rafael Ortega")) problems.push("does not name the manager, Rafael Ortega");
        if (!text.replace(/[\s()-]/g, "").includes("+351215550187"))
          problems.push("does not give the reception phone, +351 21 555 0187");
        return problems;
      },
      program: `const person = await tools.directory.findPerson({ email: "${EMAIL}" });
const { managerId } = await tools.directory.getManager({ personId: person.personId });
if (managerId === null) return { person: person.name, manager: null };
const manager = await tools.directory.getPerson({ personId: managerId });
const office = await tools.facilities.getOffice({ officeId: manager.officeId });
const building = await tools.facilities.getBuilding({ buildingId: office.buildingId });
return { person: person.name, managerName: manager.name, managerTitle: manager.title, city: office.city, address: building.address, receptionPhone: building.receptionPhone };`,
      programMistake: { find: "building.receptionPhone", replace: "building.phone" },
      answerFromOutput(output) {
        const report = output as ChainAnswer;
        return { managerName: report.managerName, receptionPhone: report.receptionPhone };
      },
      searchQueries: [
        "find a person by email",
        "manager of a person",
        "person record office",
        "office building",
        "building reception phone",
      ],
      requiredTools: [
        "directory.findPerson",
        "directory.getManager",
        "directory.getPerson",
        "facilities.getOffice",
        "facilities.getBuilding",
      ],
      render(answer) {
        return `${EMAIL}'s manager is ${answer.managerName}; the reception of their building can be reached at ${answer.receptionPhone}.`;
      },
    };
  },
});
