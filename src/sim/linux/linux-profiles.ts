// The kinds of Linux host the simulator makes: what their distribution ships of Docker and Compose.

export type LinuxProfile = 'ubuntu-20.04' | 'centos-7';

export interface ProfileFacts {
  osRelease: string;
  dockerVersion: string;
  /** The Compose v2 plugin (`docker compose`); absent: docker refuses `compose` as an unknown command. */
  composeVersion?: string;
  /** The standalone Compose v1 (`docker-compose`); absent: command not found. */
  composeV1Version?: string;
}

export const LINUX_PROFILES: Record<LinuxProfile, ProfileFacts> = {
  // docker-ce 20.10 with the compose plugin, as Docker's apt repository installs it.
  'ubuntu-20.04': {
    osRelease:
      'NAME="Ubuntu"\nVERSION="20.04.6 LTS (Focal Fossa)"\nID=ubuntu\nID_LIKE=debian\nPRETTY_NAME="Ubuntu 20.04.6 LTS"\nVERSION_ID="20.04"\n',
    dockerVersion: '20.10.24',
    composeVersion: '2.20.2',
  },
  // The Contrail 5.x era: docker-ce 18.09 and the Python docker-compose 1.x (what Ansible's docker_service
  // module, which c-a-d uses to start compose projects, drives); no compose plugin existed yet.
  'centos-7': {
    osRelease:
      'NAME="CentOS Linux"\nVERSION="7 (Core)"\nID="centos"\nID_LIKE="rhel fedora"\nVERSION_ID="7"\nPRETTY_NAME="CentOS Linux 7 (Core)"\n',
    dockerVersion: '18.09.9',
    composeV1Version: '1.22.0',
  },
};
