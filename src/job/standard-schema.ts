// The Standard Schema interface (https://standardschema.dev, v1), declared
// here rather than imported: it is a few types, and valibot, zod and
// arktype each implement `~standard` without tickq depending on them.

/** A validator any Standard Schema library makes: `schema["~standard"].validate(value)`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The validator's Standard Schema properties. */
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

/** The parts of the Standard Schema interface tickq reads. */
export declare namespace StandardSchemaV1 {
  /** What `schema["~standard"]` holds. */
  export interface Props<Input = unknown, Output = Input> {
    /** The Standard Schema version: 1. */
    readonly version: 1;
    /** The library that made it ("valibot", "zod", …). */
    readonly vendor: string;
    /** Checks a value: its output, or the issues found. */
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    /** Carries the input and output types for inference only. */
    readonly types?: Types<Input, Output> | undefined;
  }
  /** A validation's outcome. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A value that passed. */
  export interface SuccessResult<Output> {
    /** The schema's output: what tickq stores and the handler receives. */
    readonly value: Output;
    /** None on success. */
    readonly issues?: undefined;
  }
  /** A value that failed. */
  export interface FailureResult {
    /** What failed, and where. */
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One problem found. */
  export interface Issue {
    /** What is wrong. */
    readonly message: string;
    /** Where, from the root of the value; tickq names it in `BAD_ARGS`. */
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** One step of an issue's path, as an object. */
  export interface PathSegment {
    /** The property or index. */
    readonly key: PropertyKey;
  }
  /** The types a schema takes and gives. */
  export interface Types<Input = unknown, Output = Input> {
    /** What it accepts. */
    readonly input: Input;
    /** What it gives. */
    readonly output: Output;
  }
  /** The type a schema accepts. */
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  /** The type a schema gives. */
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}
