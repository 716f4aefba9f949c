// A typed repository layer: realistic TypeScript for the golden test.
import { Database, type Row } from "./db";
import { Logger } from "../logging/logger";

export const DEFAULT_PAGE_SIZE = 20;

export type UserId = string | number;

export enum Role {
  Admin = "admin",
  Member = "member",
}

export interface Entity {
  id: UserId;
  createdAt: Date;
}

export interface User extends Entity {
  name: string;
  role: Role;
  greet(): string;
}

export abstract class Repository<T extends Entity> {
  protected cache = new Map<UserId, T>();

  constructor(protected readonly db: Database, private logger: Logger) {}

  abstract table(): string;

  async find(id: UserId): Promise<T | undefined> {
    if (this.cache.has(id)) {
      return this.cache.get(id);
    }
    const row: Row = await this.db.get(this.table(), id);
    this.logger.debug("loaded", id);
    return row ? this.hydrate(row) : undefined;
  }

  protected abstract hydrate(row: Row): T;
}

export class UserRepository extends Repository<User> implements Iterable<User> {
  table(): string {
    return "users";
  }

  protected hydrate(row: Row): User {
    return { ...row, greet: () => `hi ${row.name}` } as User;
  }

  *[Symbol.iterator](): Iterator<User> {
    yield* this.cache.values();
  }
}

export namespace Queries {
  export function page(size: number = DEFAULT_PAGE_SIZE): string {
    return `LIMIT ${size}`;
  }
}

export const makeRepository = (db: Database, logger: Logger): UserRepository =>
  new UserRepository(db, logger);
