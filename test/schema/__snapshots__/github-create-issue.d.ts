/** Create a new issue in a GitHub repository. */
interface GithubCreateIssue {
  /** Repository owner (user or organization). */
  owner: string;
  /** Repository name. */
  repo: string;
  /**
   * Issue title.
   * @minLength 1
   */
  title: string;
  /** Issue body in GitHub-flavoured Markdown. */
  body?: string;
  /** Logins to assign. */
  assignees?: string[];
  /** Label names. */
  labels?: string[];
  /** Milestone number. */
  milestone?: number | null;
  /** Issue type name, if the organization uses issue types. */
  type?: string | null;
}
